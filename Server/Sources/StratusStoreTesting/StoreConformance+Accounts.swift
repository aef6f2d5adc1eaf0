import Foundation
import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    static var accountCases: [ConformanceCase] {
        [
            ConformanceCase("containers are created once and found by ID") { store in
                try await store.createContainer(ContainerInfo(id: "iCloud.a", apiToken: "t1", createdAt: 1))
                await #expect {
                    try await store.createContainer(ContainerInfo(id: "iCloud.a", apiToken: "t2", createdAt: 2))
                } throws: { error in
                    (error as? StorageError)?.code == .alreadyExists
                }
                #expect(try await store.container(id: "iCloud.a")?.apiToken == "t1")
                #expect(try await store.container(id: "iCloud.b") == nil)
                #expect(try await store.containers().map(\.id) == ["iCloud.a"])
            },
            ConformanceCase("an account is unique by email and owns a Users record in both environments") { store in
                let account = Account(
                    containerID: Fixture.container, userRecordName: Fixture.alice, emailAddress: "alice@example.com",
                    passwordHash: "hash", givenName: "Alice", familyName: nil, createdAt: Fixture.now
                )
                try await store.createAccount(account)
                var duplicate = account
                duplicate.userRecordName = Fixture.bob
                await #expect {
                    try await store.createAccount(duplicate)
                } throws: { error in
                    (error as? StorageError)?.code == .alreadyExists
                }
                #expect(try await store.account(containerID: Fixture.container, emailAddress: "alice@example.com") == account)
                #expect(try await store.account(containerID: Fixture.container, userRecordName: Fixture.alice) == account)
                #expect(try await store.account(containerID: "iCloud.other", userRecordName: Fixture.alice) == nil)
                for environment in Environment.allCases {
                    let zone = Fixture.publicDB(environment).zone(ZoneID.defaultZoneName)
                    let user = try await store.lookupRecords([Fixture.alice], in: zone)[Fixture.alice]
                    #expect(user?.recordType == "Users")
                    #expect(user?.created.userRecordName == Fixture.alice)
                }
                let spoof = try await Fixture.modify(store, Fixture.publicDB().zone(ZoneID.defaultZoneName), [Fixture.create("_fake", type: "Users")])
                #expect(Fixture.failure(spoof)?.error.code == .accessDenied)
            },
            ConformanceCase("sessions are stored, found and removed") { store in
                let session = Session(id: "s1", containerID: Fixture.container, userRecordName: Fixture.alice, createdAt: Fixture.now, expiresAt: Fixture.now + 1000)
                try await store.createSession(session)
                #expect(try await store.session(id: "s1") == session)
                try await store.deleteSession(id: "s1")
                #expect(try await store.session(id: "s1") == nil)
                try await store.deleteSession(id: "s1")
            },
            ConformanceCase("server keys are stored, listed per container, and revoked") { store in
                let key = ServerKey(id: "k1", containerID: Fixture.container, publicKeyPEM: "PEM", role: "Admin", createdAt: 1)
                try await store.createServerKey(key)
                try await store.createServerKey(ServerKey(id: "k2", containerID: "iCloud.other", publicKeyPEM: "PEM", role: nil, createdAt: 2))
                #expect(try await store.serverKeys(containerID: Fixture.container) == [key])
                #expect(try await store.serverKey(id: "k1") == key)
                await #expect(throws: StorageError.self) { try await store.revokeServerKey(id: "k1", containerID: "iCloud.other") }
                try await store.revokeServerKey(id: "k1", containerID: Fixture.container)
                #expect(try await store.serverKey(id: "k1") == nil)
                #expect(try await store.serverKeys(containerID: Fixture.container).isEmpty)
            },
            ConformanceCase("users' custom roles are kept per environment") { store in
                try await store.setRoles(["Admin", "Editor"], containerID: Fixture.container, environment: .development, userRecordName: Fixture.alice)
                #expect(try await store.roles(containerID: Fixture.container, environment: .development, userRecordName: Fixture.alice) == ["Admin", "Editor"])
                #expect(try await store.roles(containerID: Fixture.container, environment: .production, userRecordName: Fixture.alice).isEmpty)
                try await store.setRoles([], containerID: Fixture.container, environment: .development, userRecordName: Fixture.alice)
                #expect(try await store.roles(containerID: Fixture.container, environment: .development, userRecordName: Fixture.alice).isEmpty)
            },
            ConformanceCase("a secret is made once and stays the same") { store in
                let first = try await store.secret(named: "k") { Data([1, 2, 3]) }
                let second = try await store.secret(named: "k") { Data([4, 5, 6]) }
                #expect(first == Data([1, 2, 3]))
                #expect(second == first)
            },
            ConformanceCase("failed sign-ins are counted per key within a window, start again after it, and are forgotten") { store in
                let window: Int64 = 60_000
                try await store.recordSignInFailures(keys: ["account:a|1.2.3.4", "address:1.2.3.4"], now: 1_000, window: window)
                try await store.recordSignInFailures(keys: ["account:b|1.2.3.4", "address:1.2.3.4"], now: 2_000, window: window)
                let counted = try await store.signInFailures(
                    keys: ["account:a|1.2.3.4", "account:b|1.2.3.4", "address:1.2.3.4", "address:5.6.7.8"], now: 3_000, window: window
                )
                #expect(counted == [
                    "account:a|1.2.3.4": SignInFailures(count: 1, lastAt: 1_000),
                    "account:b|1.2.3.4": SignInFailures(count: 1, lastAt: 2_000),
                    "address:1.2.3.4": SignInFailures(count: 2, lastAt: 2_000),
                ])
                // Past the window a key counts nothing, and its next failure is the first again.
                #expect(try await store.signInFailures(keys: ["account:a|1.2.3.4"], now: 1_000 + window + 1, window: window).isEmpty)
                try await store.recordSignInFailures(keys: ["account:a|1.2.3.4"], now: 1_000 + window + 1, window: window)
                #expect(try await store.signInFailures(keys: ["account:a|1.2.3.4"], now: 1_000 + window + 2, window: window)
                    == ["account:a|1.2.3.4": SignInFailures(count: 1, lastAt: 1_000 + window + 1)])
                try await store.forgetSignInFailures(key: "account:a|1.2.3.4")
                #expect(try await store.signInFailures(keys: ["account:a|1.2.3.4"], now: 1_000 + window + 2, window: window).isEmpty)
                #expect(try await store.signInFailures(keys: ["address:1.2.3.4"], now: 2_500, window: window)["address:1.2.3.4"]?.count == 2)
            },
        ]
    }
}
