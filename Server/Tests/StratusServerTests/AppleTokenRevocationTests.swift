import StratusServices
import Crypto
import Foundation
import StratusModel
import StratusStore
@testable import StratusServer
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Sign in with Apple's refresh tokens: kept sealed from the authorization code, revoked when the account goes,
/// retried while Apple is down, with client secrets signed by the team's key as Apple checks them.
@Suite struct AppleTokenRevocationTests {
    static let teamID = "TEAM123456"
    static let keyID = "KEY1234567"

    static func withServer(_ body: @escaping @Sendable (TestClient, String, FakeAppleID) async throws -> Void) async throws {
        let apple = try FakeAppleID()
        let teamKey = P256.Signing.PrivateKey()
        apple.acceptClientSecrets(teamID: teamID, keyID: keyID, publicKey: teamKey.publicKey)
        let pem = teamKey.pemRepresentation
        try await TestServer.run(configure: { configuration in
            configuration.appleKeysURL = apple.keysURL
            configuration.revocationSweepInterval = 0.1
            configuration.revocationRetryDelays = [0.3]
        }) { client in
            let token = try await client.createContainer()
            let settings = try await client.send(
                .put, "/admin/1/\(TestServer.container)/accounts/settings",
                body: #"{"appleClientIDs":["com.example.Notes"],"appleTeamID":"\#(teamID)","appleKeyID":"\#(keyID)"}"#, headers: client.admin
            )
            guard settings.status == 200 else { throw TestFailure("settings: \(settings.json)") }
            let secret = try await client.send(
                .put, "/admin/1/\(TestServer.container)/secrets/apple.privateKey", json: .object(["value": .string(pem)]), headers: client.admin
            )
            guard secret.status == 200 else { throw TestFailure("secret: \(secret.json)") }
            try await body(client, token, apple)
        }
    }

    /// Waits until `condition` holds, failing with what `describe` says after 60 s.
    static func waitUntil(_ what: String, _ condition: () async throws -> Bool, describe: () async throws -> String) async throws {
        try await Polling.until(what, within: 60, every: .milliseconds(50), condition) {
            (try? await describe()) ?? "nothing readable"
        }
    }

    @Test("the authorization code becomes a sealed refresh token; deleting the account revokes it, retried while Apple answers 503")
    func keptAndRevoked() async throws {
        try await Self.withServer { client, token, apple in
            let request = AppleSignInRequest(
                identityToken: try apple.token(rawNonce: "n-1"), nonce: "n-1", authorizationCode: apple.authorizationCode()
            )
            let signedIn = try await client.auth("signin/apple", try PasskeyAPITests.json(request), token: token)
            #expect(signedIn.status == 201, "\(signedIn.json)")
            let user = try #require(signedIn.string("userRecordName"))
            let session = try #require(signedIn.string("ckWebAuthToken"))
            let store = client.parts.store
            try await Self.waitUntil("keeping the refresh token", {
                try await store.identities(containerID: TestServer.container, userRecordName: user).first?.sealedRefreshToken != nil
            }, describe: { "refusals \(apple.refusals), issued \(apple.issuedRefreshTokens)" })
            let refreshToken = try #require(apple.issuedRefreshTokens.first { $0.value == "com.example.Notes" }?.key)
            let sealed = try #require(try await store.identities(containerID: TestServer.container, userRecordName: user).first?.sealedRefreshToken)
            #expect(sealed.hasPrefix("s1.") && !sealed.contains(refreshToken), "kept sealed: \(sealed.prefix(30))")

            apple.failRevocations(2)
            let deleted = try await client.auth("account/delete", "{}", token: token, session: session)
            #expect(deleted.status == 200, "\(deleted.json)")
            let pending = try await client.send(.get, "/admin/1/\(TestServer.container)/accounts/revocations", headers: client.admin)
            #expect(pending.status == 200, "\(pending.json)")
            try await Self.waitUntil("the revocation", { apple.revokedTokens.contains(refreshToken) }, describe: {
                "revoked \(apple.revokedTokens), refusals \(apple.refusals), pending \(try await store.pendingRevocations(containerID: TestServer.container))"
            })
            #expect(apple.refusals.filter { $0.contains("failing on purpose") }.count == 2, "\(apple.refusals)")
            try await Self.waitUntil("the queue to empty", { try await store.pendingRevocations(containerID: TestServer.container).isEmpty }, describe: {
                "\(try await store.pendingRevocations(containerID: TestServer.container))"
            })
        }
    }

    @Test("a failing revocation is listed for operators with its last error; unlinking Apple revokes too")
    func listedAndUnlinked() async throws {
        try await Self.withServer { client, token, apple in
            apple.failRevocations(1000)
            let request = AppleSignInRequest(
                identityToken: try apple.token(rawNonce: "n-2", email: nil), nonce: "n-2", authorizationCode: apple.authorizationCode()
            )
            let signedIn = try await client.auth("signin/apple", try PasskeyAPITests.json(request), token: token)
            let user = try #require(signedIn.string("userRecordName"), "\(signedIn.json)")
            let session = try #require(signedIn.string("ckWebAuthToken"))
            let store = client.parts.store
            try await Self.waitUntil("keeping the refresh token", {
                try await store.identities(containerID: TestServer.container, userRecordName: user).first?.sealedRefreshToken != nil
            }, describe: { "refusals \(apple.refusals)" })
            // A password first, so that Apple is not the last way in.
            let attached = try await client.auth(
                "account/attach/password", #"{"emailAddress":"ann@example.com","password":"correct horse battery"}"#, token: token, session: session
            )
            #expect(attached.status == 200, "\(attached.json)")
            let removed = try await client.auth(
                "account/sign-in-methods/remove", #"{"method":"apple","subject":"001234.abcd"}"#, token: token, session: session
            )
            #expect(removed.status == 200, "\(removed.json)")
            try await Self.waitUntil("a failed attempt to be noted", {
                try await store.pendingRevocations(containerID: TestServer.container).first.map { $0.attempts >= 1 } == true
            }, describe: { "\(try await store.pendingRevocations(containerID: TestServer.container))" })
            let listed = try await client.send(.get, "/admin/1/\(TestServer.container)/accounts/revocations", headers: client.admin)
            #expect("\(listed.json)".contains("503") && "\(listed.json)".contains("apple"), "\(listed.json)")
            #expect(!"\(listed.json)".contains("s1."), "sealed tokens are not returned: \(listed.json)")
        }
    }
}
