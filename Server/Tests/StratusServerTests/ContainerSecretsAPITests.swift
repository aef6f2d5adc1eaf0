import StratusServices
import Crypto
import Foundation
import HTTPTypes
import StratusModel
import StratusStore
@testable import StratusServer
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Containers' secrets: sealed with the operator's key, never returned, rotated across nodes without downtime.
@Suite struct ContainerSecretsAPITests {
    static let applePEM = P256.Signing.PrivateKey().pemRepresentation

    @Test("a secret is checked, stored sealed, listed by name only, replaced and removed")
    func storeListRemove() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let base = "/admin/1/\(TestServer.container)/secrets"
            let stored = try await client.send(.put, base + "/apple.privateKey", json: .object(["value": .string(Self.applePEM)]), headers: client.admin)
            #expect(stored.status == 200, "\(stored.json)")
            let sealed = try #require(try await client.parts.store.containerSecret(containerID: TestServer.container, name: "apple.privateKey"))
            #expect(sealed.sealedValue.hasPrefix("s1.") && !sealed.sealedValue.contains("PRIVATE KEY"), "stored: \(sealed.sealedValue.prefix(40))")

            let listed = try await client.send(.get, base, headers: client.admin)
            #expect(listed.status == 200 && "\(listed.json)".contains("apple.privateKey") && !"\(listed.json)".contains("PRIVATE KEY"), "\(listed.json)")
            #expect(listed["secretsKey"]?.objectValue?["configured"] == .bool(true), "\(listed.json)")

            let refusals: [(String, String, String)] = [
                ("apple.privateKey", "not a key", "p8"),
                ("openid.corp.clientSecret", "s3cret", "no OpenID provider named corp"),
                ("database.password", "x", "not a secret Stratus uses"),
            ]
            for (name, value, reason) in refusals {
                let refused = try await client.send(.put, base + "/" + name, json: .object(["value": .string(value)]), headers: client.admin)
                #expect(refused.status == 400 && (refused.string("reason") ?? "").contains(reason), "\(name): \(refused.json)")
            }
            let provider = #"{"openIDProviders":[{"name":"corp","issuer":"https://id.example.com","clientIDs":["web"]}]}"#
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: provider, headers: client.admin)
            #expect(try await client.send(.put, base + "/openid.corp.clientSecret", json: .object(["value": .string("s3cret")]), headers: client.admin).status == 200)
            let secrets = ContainerSecrets(store: client.parts.store, keys: ServerConfiguration.forTests().secretsKeys)
            #expect(try await secrets.value(named: "openid.corp.clientSecret", containerID: TestServer.container) == "s3cret")

            #expect(try await client.send(.delete, base + "/apple.privateKey", headers: client.admin).status == 200)
            let gone = try await client.send(.delete, base + "/apple.privateKey", headers: client.admin)
            #expect(gone.status == 404, "\(gone.json)")
            #expect(try await client.send(.get, base).status == 401, "the admin key is required")
        }
    }

    @Test("a server without a secrets key refuses to store one, saying so")
    func noKey() async throws {
        try await TestServer.run(configure: { $0.secretsKeys = SecretsKeyring(keys: []) }) { client in
            _ = try await client.createContainer()
            let refused = try await client.send(
                .put, "/admin/1/\(TestServer.container)/secrets/apple.privateKey", json: .object(["value": .string(Self.applePEM)]), headers: client.admin
            )
            #expect(refused.status == 409 && (refused.string("reason") ?? "").contains("--secrets-key"), "\(refused.json)")
        }
    }

    @Test("keys rotate across nodes: the new key first and the old after it, reseal, then the old key alone no longer opens")
    func rotation() async throws {
        let old = SecretsKeyring.newKeyText()
        let new = SecretsKeyring.newKeyText()
        let folder = try TestFolder("stratus-reseal")
        defer { folder.remove() }
        let keyFile = folder.path + "/admin.key"
        try await TestServer.runNodes(3, configureNode: { index, configuration in
            configuration.secretsKeys = try! SecretsKeyring(parsing: index == 1 ? old : index == 2 ? "\(new),\(old)" : new)
            if index == 3 { configuration.adminKeyFile = keyFile }
        }) { nodes in
            let (first, rotating, _) = (nodes[0], nodes[1], nodes[2])
            _ = try await first.createContainer()
            let put = try await first.send(
                .put, "/admin/1/\(TestServer.container)/secrets/apple.privateKey", json: .object(["value": .string(Self.applePEM)]), headers: first.admin
            )
            #expect(put.status == 200, "\(put.json)")
            let store = first.parts.store
            let newOnly = ContainerSecrets(store: store, keys: try SecretsKeyring(parsing: new))
            let both = ContainerSecrets(store: store, keys: try SecretsKeyring(parsing: "\(new),\(old)"))
            #expect(try await both.value(named: "apple.privateKey", containerID: TestServer.container) == Self.applePEM.trimmingCharacters(in: .whitespacesAndNewlines))
            await #expect(throws: ServiceError.self) { _ = try await newOnly.value(named: "apple.privateKey", containerID: TestServer.container) }

            // The admin key rotated on the first node is sealed with the old key, which the third cannot open.
            let adminKey = try #require(try await first.send(.post, "/admin/1/admin-key/rotate", headers: first.admin).string("adminKey"))
            let admin: HTTPFields = [.authorization: "Bearer \(adminKey)"]

            let resealed = try await rotating.send(.post, "/admin/1/secrets/reseal", headers: admin)
            #expect(resealed["resealed"] == .integer(2) && resealed["alreadyCurrent"] == .integer(0), "\(resealed.json)")
            let again = try await rotating.send(.post, "/admin/1/secrets/reseal", headers: admin)
            #expect(again["resealed"] == .integer(0) && again["alreadyCurrent"] == .integer(2), "\(again.json)")
            try await Polling.until("the third node writes the resealed admin key to its file") {
                (try? String(contentsOfFile: keyFile, encoding: .utf8)) == adminKey + "\n"
            }
            #expect(try await newOnly.value(named: "apple.privateKey", containerID: TestServer.container) == Self.applePEM.trimmingCharacters(in: .whitespacesAndNewlines))
            let oldOnly = ContainerSecrets(store: store, keys: try SecretsKeyring(parsing: old))
            await #expect(throws: ServiceError.self) { _ = try await oldOnly.value(named: "apple.privateKey", containerID: TestServer.container) }

            // A sealed value copied to another container's row does not open there.
            let sealed = try #require(try await store.containerSecret(containerID: TestServer.container, name: "apple.privateKey"))
            try await store.setContainerSecret(ContainerSecret(containerID: "iCloud.other", name: "apple.privateKey", sealedValue: sealed.sealedValue, updatedAt: 1))
            await #expect(throws: ServiceError.self) { _ = try await newOnly.value(named: "apple.privateKey", containerID: "iCloud.other") }
        }
    }
}
