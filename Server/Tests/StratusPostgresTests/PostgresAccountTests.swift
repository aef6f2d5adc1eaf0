import Foundation
import StratusModel
import StratusPostgres
import StratusStore
import Testing

@Suite struct PostgresAccountTests {
    @Test("containers, API tokens, sessions and secrets round-trip")
    func containersAndSessions() async throws {
        try await withPostgresStore { store, _ in
            try await store.createContainer(ContainerInfo(id: "iCloud.b", apiToken: "t2", createdAt: 2))
            try await store.createContainer(ContainerInfo(id: "iCloud.a", apiToken: "t1", createdAt: 1))
            await #expect(throws: StorageError.self) { try await store.createContainer(ContainerInfo(id: "iCloud.a", apiToken: "t3", createdAt: 3)) }
            #expect(try await store.containers().map(\.id) == ["iCloud.a", "iCloud.b"])
            try await store.setAPIToken("t9", containerID: "iCloud.a")
            #expect(try await store.container(id: "iCloud.a")?.apiToken == "t9")
            await #expect(throws: StorageError.self) { try await store.setAPIToken("t8", containerID: "iCloud.none") }

            try await store.createSession(Session(id: "s1", containerID: "iCloud.a", userRecordName: "_u", createdAt: 10, expiresAt: 20))
            #expect(try await store.session(id: "s1")?.expiresAt == 20)
            // A new session sweeps expired ones.
            try await store.createSession(Session(id: "s2", containerID: "iCloud.a", userRecordName: "_u", createdAt: 30, expiresAt: 40))
            #expect(try await store.session(id: "s1") == nil)
            try await store.deleteSession(id: "s2")
            #expect(try await store.session(id: "s2") == nil)

            let first = try await store.secret(named: "signing") { Data([1, 2, 3]) }
            let second = try await store.secret(named: "signing") { Data([4, 5, 6]) }
            #expect(first == Data([1, 2, 3]) && second == first)
        }
    }

    @Test("roles, server keys and seen signatures")
    func rolesAndKeys() async throws {
        try await withPostgresStore { store, _ in
            #expect(try await store.roles(containerID: "c", environment: .development, userRecordName: "_u").isEmpty)
            try await store.setRoles(["editor", "admin"], containerID: "c", environment: .development, userRecordName: "_u")
            #expect(try await store.roles(containerID: "c", environment: .development, userRecordName: "_u") == ["admin", "editor"])
            #expect(try await store.roles(containerID: "c", environment: .production, userRecordName: "_u").isEmpty)

            try await store.createServerKey(ServerKey(id: "k2", containerID: "c", publicKeyPEM: "p2", role: "admin", createdAt: 2))
            try await store.createServerKey(ServerKey(id: "k1", containerID: "c", publicKeyPEM: "p1", role: nil, createdAt: 1))
            #expect(try await store.serverKeys(containerID: "c").map(\.id) == ["k1", "k2"])
            try await store.revokeServerKey(id: "k1", containerID: "c")
            await #expect(throws: StorageError.self) { try await store.revokeServerKey(id: "k1", containerID: "c") }
            #expect(try await store.serverKeys(containerID: "c").map(\.id) == ["k2"])

            #expect(try await store.markSignatureSeen("sig", expiresAt: 100, now: 50))
            #expect(try await !store.markSignatureSeen("sig", expiresAt: 100, now: 60))
            // Once expired, the record of it is swept and the date check refuses it instead.
            #expect(try await store.markSignatureSeen("sig", expiresAt: 300, now: 200))
        }
    }
}
