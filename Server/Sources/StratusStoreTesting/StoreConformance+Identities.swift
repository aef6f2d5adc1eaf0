import StratusModel
import StratusStore
import Testing

/// Provider identities and anonymous accounts.
extension StoreConformance {
    static var identityCases: [ConformanceCase] {
        [
            ConformanceCase("accounts without an address are many per container; one gets an address and password and stops being anonymous") { store in
                for user in [Fixture.alice, Fixture.bob] {
                    try await store.createAccount(Account(
                        containerID: Fixture.container, userRecordName: user, emailAddress: nil, passwordHash: "", givenName: nil, familyName: nil,
                        isAnonymous: true, createdAt: Fixture.now
                    ))
                }
                let alice = try #require(try await store.account(containerID: Fixture.container, userRecordName: Fixture.alice))
                #expect(alice.isAnonymous && alice.emailAddress == nil && !alice.isDeveloper && !alice.hasPassword)
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: "_carol", emailAddress: "carol@example.com", passwordHash: "h", givenName: nil,
                    familyName: nil, createdAt: Fixture.now
                ))
                await #expect {
                    try await store.changeAccount(
                        containerID: Fixture.container, userRecordName: Fixture.alice, change: .attachPassword(emailAddress: "carol@example.com", hash: "h2")
                    )
                } throws: { error in (error as? StorageError)?.code == .alreadyExists }
                let attached = try await store.changeAccount(
                    containerID: Fixture.container, userRecordName: Fixture.alice, change: .attachPassword(emailAddress: "alice@example.com", hash: "h2")
                )
                #expect(!attached.isAnonymous && attached.emailAddress == "alice@example.com" && attached.passwordHash == "h2" && !attached.isEmailVerified)
                #expect(try await store.account(containerID: Fixture.container, emailAddress: "alice@example.com")?.userRecordName == Fixture.alice)
            },
            ConformanceCase("anonymous accounts unused since a time are found; a session used since, or an attached passkey, keeps one") { store in
                for (user, created) in [(Fixture.alice, Fixture.now - 100), (Fixture.bob, Fixture.now - 90), ("_carol", Fixture.now - 80), ("_dave", Fixture.now + 5)] {
                    try await store.createAccount(Account(
                        containerID: Fixture.container, userRecordName: user, emailAddress: nil, passwordHash: "", givenName: nil, familyName: nil,
                        isAnonymous: true, createdAt: created
                    ))
                }
                try await store.createSession(Session(
                    id: "s-bob", containerID: Fixture.container, userRecordName: Fixture.bob, createdAt: Fixture.now - 90, expiresAt: Fixture.now + 10_000
                ))
                try await store.touchSession(id: "s-bob", at: Fixture.now + 1)
                try await store.addPasskey(Passkey(
                    containerID: Fixture.container, credentialID: "k", userRecordName: "_carol", publicKey: "p", signCount: 0, name: "Phone",
                    createdAt: Fixture.now
                ))
                let stale = try await store.anonymousAccounts(containerID: Fixture.container, inactiveSince: Fixture.now, limit: 10)
                #expect(stale.map(\.userRecordName) == [Fixture.alice], "saw \(stale.map(\.userRecordName))")
                #expect(try await store.account(containerID: Fixture.container, userRecordName: "_carol")?.isAnonymous == false)
                #expect(try await store.anonymousAccounts(containerID: "iCloud.other", inactiveSince: Fixture.now, limit: 10).isEmpty)
            },
            ConformanceCase("provider identities are unique per provider and container, kept up to date, attach their account, and go with it") { store in
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: Fixture.alice, emailAddress: nil, passwordHash: "", givenName: nil, familyName: nil,
                    isAnonymous: true, createdAt: Fixture.now
                ))
                var identity = AccountIdentity(
                    containerID: Fixture.container, provider: "apple", subject: "001.abc", userRecordName: Fixture.alice,
                    emailAddress: "x@privaterelay.appleid.com", isEmailVerified: true, isPrivateEmail: true, createdAt: Fixture.now
                )
                try await store.addIdentity(identity)
                #expect(try await store.account(containerID: Fixture.container, userRecordName: Fixture.alice)?.isAnonymous == false)
                await #expect { try await store.addIdentity(identity) } throws: { error in (error as? StorageError)?.code == .alreadyExists }
                var other = identity
                other.userRecordName = "_nobody"
                other.subject = "002"
                await #expect { try await store.addIdentity(other) } throws: { error in (error as? StorageError)?.code == .notFound }
                identity.sealedRefreshToken = "sealed"
                identity.lastUsedAt = Fixture.now + 9
                identity.isPrivateEmail = false
                try await store.updateIdentity(identity)
                #expect(try await store.identity(containerID: Fixture.container, provider: "apple", subject: "001.abc") == identity)
                #expect(try await store.identity(containerID: "iCloud.other", provider: "apple", subject: "001.abc") == nil)

                // An account made with an identity, in one commit; the same identity twice makes nothing.
                let bob = Account(
                    containerID: Fixture.container, userRecordName: Fixture.bob, emailAddress: "bob@example.com", passwordHash: "", givenName: "Bob",
                    familyName: nil, isEmailVerified: true, createdAt: Fixture.now
                )
                var bobs = identity
                bobs.userRecordName = Fixture.bob
                await #expect { try await store.createAccount(bob, passkey: nil, identity: bobs) } throws: { error in
                    (error as? StorageError)?.code == .alreadyExists
                }
                #expect(try await store.account(containerID: Fixture.container, userRecordName: Fixture.bob) == nil)
                bobs.subject = "003"
                try await store.createAccount(bob, passkey: nil, identity: bobs)
                #expect(try await store.identities(containerID: Fixture.container, userRecordName: Fixture.bob).map(\.subject) == ["003"])

                await #expect {
                    try await store.removeIdentity(containerID: Fixture.container, userRecordName: Fixture.bob, provider: "apple", subject: "001.abc")
                } throws: { error in (error as? StorageError)?.code == .notFound }
                _ = try await store.beginAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice)
                try await store.finishAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice)
                #expect(try await store.identity(containerID: Fixture.container, provider: "apple", subject: "001.abc") == nil)
                #expect(try await store.signInMethodCounts(containerID: Fixture.container) == ["apple": 1], "Bob signs in with Apple only")
                try await store.removeIdentity(containerID: Fixture.container, userRecordName: Fixture.bob, provider: "apple", subject: "003")
                #expect(try await store.identities(containerID: Fixture.container, userRecordName: Fixture.bob).isEmpty)
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: "_carol", emailAddress: "carol@example.com", passwordHash: "h", givenName: nil,
                    familyName: nil, createdAt: Fixture.now
                ))
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: "_dan", emailAddress: nil, passwordHash: "", givenName: nil, familyName: nil,
                    isAnonymous: true, createdAt: Fixture.now
                ))
                #expect(try await store.signInMethodCounts(containerID: Fixture.container) == ["password": 1, "anonymous": 1])
            },
        ]
    }
}
