import StratusServices
import Crypto
import Foundation
import StratusModel
import StratusServer
import StratusStore
import Testing

@Suite struct APNsTests {
    @Test("notifications reach registered devices through an APNs-like HTTP/2 server with a signed token; gone devices are forgotten")
    func deliversThroughAPNs() async throws {
        let device = String(repeating: "ab", count: 32)
        let goneDevice = String(repeating: "de", count: 32)
        let fake = try FakeAPNs(gone: [goneDevice])
        let key = P256.Signing.PrivateKey()
        let publicKey = key.publicKey.rawRepresentation
        let apns = APNsConfiguration(
            privateKeyPEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456", topic: "com.example.chat",
            sandboxHost: "localhost:\(fake.port)", trustedCertificatesPEM: fake.certificatePEM
        )
        try await TestServer.run(configure: { $0.apns = apns }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await alice.post("public", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"query","query":{"recordType":"Message"},"notificationInfo":{"alertBody":"New message","additionalFields":["text"]}}}]}"#)
            for registered in [device, goneDevice] {
                let reply = try await alice.post("public", "tokens/register", #"{"apnsEnvironment":"development","apnsToken":"\#(registered)"}"#)
                #expect(reply.status == 200)
            }
            let bad = try await alice.post("public", "tokens/register", #"{"apnsEnvironment":"development","apnsToken":"not a token"}"#)
            #expect(bad.errorCode == "BAD_REQUEST")

            _ = try await bob.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"m1","recordType":"Message","fields":{"text":{"value":"hello"}}}}]}"#)
            let requests = try await fake.waitForRequests(2)
            #expect(requests.count == 2)
            let delivered = try #require(requests.first { $0.path == "/3/device/\(device)" })
            #expect(delivered.headers["apns-topic"] == "com.example.chat")
            #expect(delivered.headers["apns-push-type"] == "alert")
            let payload = try JSONDecoder().decode(JSONValue.self, from: Data(delivered.body.utf8))
            #expect(payload.objectValue?["aps"]?.objectValue?["alert"]?.objectValue?["body"] == .string("New message"))
            #expect(payload.objectValue?["ck"]?.objectValue?["qry"]?.objectValue?["af"]?.objectValue?["text"] == .string("hello"))

            // The provider token is an ES256 JWT of the configured key, key id and team.
            let authorization = try #require(delivered.headers["authorization"])
            #expect(authorization.hasPrefix("bearer "))
            let parts = authorization.dropFirst("bearer ".count).split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            let header = try JSONDecoder().decode([String: String].self, from: try #require(Self.base64URL(parts[0])))
            #expect(header == ["alg": "ES256", "kid": "KEY1234567"])
            let claims = try JSONDecoder().decode(JSONValue.self, from: try #require(Self.base64URL(parts[1])))
            #expect(claims.objectValue?["iss"] == .string("TEAM123456"))
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Self.base64URL(parts[2])))
            let verifier = try P256.Signing.PublicKey(rawRepresentation: publicKey)
            #expect(verifier.isValidSignature(signature, for: Data("\(parts[0]).\(parts[1])".utf8)))

            // Apple said the other device is gone: it is forgotten.
            var remaining: [PushDevice] = []
            for _ in 0..<50 {
                remaining = try await client.parts.store.pushDevices(for: alice.userRecordName, containerID: TestServer.container, environment: .development)
                if remaining.count == 1 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(remaining.map(\.token) == [device])
        }
    }

    @Test("three servers sharing a store send each notification through APNs once, not once per server")
    func oncePerNotificationAcrossNodes() async throws {
        let device = String(repeating: "cd", count: 32)
        let fake = try FakeAPNs(gone: [])
        let key = P256.Signing.PrivateKey()
        let apns = APNsConfiguration(
            privateKeyPEM: key.pemRepresentation, keyID: "KEY1234567", teamID: "TEAM123456", topic: "com.example.chat",
            sandboxHost: "localhost:\(fake.port)", trustedCertificatesPEM: fake.certificatePEM
        )
        try await TestServer.runNodes(3, configure: { $0.apns = apns }) { nodes in
            let token = try await nodes[0].createContainer()
            let alice = try await nodes[0].signUp("alice@example.com", token: token)
            let bob = try await nodes[1].signUp("bob@example.com", token: token)
            _ = try await alice.post("public", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"query","query":{"recordType":"Message"},"notificationInfo":{"alertBody":"New message"}}}]}"#)
            #expect(try await alice.post("public", "tokens/register", #"{"apnsEnvironment":"development","apnsToken":"\#(device)"}"#).status == 200)
            // Three saves, each through another server.
            for (index, node) in nodes.enumerated() {
                let writer = UserSession(client: node, apiToken: bob.apiToken, webAuthToken: bob.webAuthToken, userRecordName: bob.userRecordName)
                _ = try await writer.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"m\#(index)","recordType":"Message","fields":{"text":{"value":"hello"}}}}]}"#)
            }
            #expect(try await fake.waitForRequests(3).count == 3)
            // Time for a second server to send them again, were it to.
            try await Task.sleep(for: .seconds(1))
            #expect(try await fake.waitForRequests(3).count == 3)
        }
    }

    @Test("without an APNs key, tokens/register refuses device tokens and still accepts courier tokens")
    func withoutAPNs() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let device = try await alice.post("public", "tokens/register", #"{"apnsEnvironment":"development","apnsToken":"\#(String(repeating: "ab", count: 32))"}"#)
            #expect(device.errorCode == "BAD_REQUEST")
            _ = try await NotificationsAPITests.courier(alice)
        }
    }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
