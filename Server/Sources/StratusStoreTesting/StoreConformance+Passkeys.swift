import StratusModel
import StratusStore
import Testing

/// Passkeys and their single-use challenges.
extension StoreConformance {
    static var passkeyCases: [ConformanceCase] {
        [
            ConformanceCase("a passkey challenge is redeemed once, in its container, before it expires") { store in
                try await store.createPasskeyChallenge(challenge("c1", purpose: .signIn, expiresAt: Fixture.now + 1000))
                try await store.createPasskeyChallenge(challenge("c2", purpose: .register, user: Fixture.alice, details: #"{"signsIn":true}"#))
                try await store.createPasskeyChallenge(challenge("late", purpose: .signIn, expiresAt: Fixture.now - 1))
                #expect(try await store.redeemPasskeyChallenge("c1", containerID: "iCloud.other", now: Fixture.now) == nil)
                async let first = store.redeemPasskeyChallenge("c1", containerID: Fixture.container, now: Fixture.now)
                async let second = store.redeemPasskeyChallenge("c1", containerID: Fixture.container, now: Fixture.now)
                let both = try await [first, second]
                #expect(both.compactMap { $0 }.count == 1, "two redemptions at once: one wins, saw \(both)")
                #expect(try await store.redeemPasskeyChallenge("late", containerID: Fixture.container, now: Fixture.now) == nil)
                let kept = try #require(try await store.redeemPasskeyChallenge("c2", containerID: Fixture.container, now: Fixture.now))
                #expect(kept.purpose == .register && kept.userRecordName == Fixture.alice && kept.details == #"{"signsIn":true}"#)
                #expect(try await store.redeemPasskeyChallenge("c2", containerID: Fixture.container, now: Fixture.now) == nil)
            },
            ConformanceCase("passkeys are kept per account, counted on it, unique per container, and their counters only grow") { store in
                try await makeAccount(store, Fixture.alice, "alice@example.com")
                try await store.addPasskey(passkey("k1", owner: Fixture.alice, signCount: 5))
                try await store.addPasskey(passkey("k2", owner: Fixture.alice, signCount: 0, createdAt: Fixture.now + 1))
                await #expect { try await store.addPasskey(passkey("k1", owner: Fixture.alice, signCount: 0)) } throws: { error in
                    (error as? StorageError)?.code == .alreadyExists
                }
                await #expect { try await store.addPasskey(passkey("k9", owner: "_nobody", signCount: 0)) } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }
                #expect(try await store.account(containerID: Fixture.container, userRecordName: Fixture.alice)?.passkeyCount == 2)
                #expect(try await store.passkeys(containerID: Fixture.container, userRecordName: Fixture.alice).map(\.credentialID) == ["k1", "k2"])
                let read = try #require(try await store.passkey(containerID: Fixture.container, credentialID: "k1"))
                #expect(read == passkey("k1", owner: Fixture.alice, signCount: 5))

                try await store.usePasskey(containerID: Fixture.container, credentialID: "k1", signCount: 6, at: Fixture.now + 50)
                #expect(try await store.passkey(containerID: Fixture.container, credentialID: "k1")?.lastUsedAt == Fixture.now + 50)
                for stale: Int64 in [6, 3, 0] {
                    await #expect("counter \(stale) after 6") {
                        try await store.usePasskey(containerID: Fixture.container, credentialID: "k1", signCount: stale, at: Fixture.now + 60)
                    } throws: { error in
                        (error as? StorageError)?.code == .conflict
                    }
                }
                // An authenticator that keeps no counter sends 0 each time.
                try await store.usePasskey(containerID: Fixture.container, credentialID: "k2", signCount: 0, at: Fixture.now + 70)
                try await store.usePasskey(containerID: Fixture.container, credentialID: "k2", signCount: 0, at: Fixture.now + 80)
                await #expect { try await store.usePasskey(containerID: Fixture.container, credentialID: "gone", signCount: 1, at: 1) } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }

                await #expect { try await store.removePasskey(containerID: Fixture.container, userRecordName: Fixture.bob, credentialID: "k1") } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }
                try await store.removePasskey(containerID: Fixture.container, userRecordName: Fixture.alice, credentialID: "k1")
                #expect(try await store.passkey(containerID: Fixture.container, credentialID: "k1") == nil)
                #expect(try await store.account(containerID: Fixture.container, userRecordName: Fixture.alice)?.passkeyCount == 1)
            },
            ConformanceCase("an account made with a passkey is made whole or not at all, and its deletion takes its passkeys") { store in
                try await makeAccount(store, Fixture.alice, "alice@example.com")
                try await store.addPasskey(passkey("taken", owner: Fixture.alice, signCount: 0))
                let bob = Account(
                    containerID: Fixture.container, userRecordName: Fixture.bob, emailAddress: "bob@example.com", passwordHash: "",
                    givenName: nil, familyName: nil, createdAt: Fixture.now
                )
                await #expect { try await store.createAccount(bob, passkey: passkey("taken", owner: Fixture.bob, signCount: 0)) } throws: { error in
                    (error as? StorageError)?.code == .alreadyExists
                }
                #expect(try await store.account(containerID: Fixture.container, userRecordName: Fixture.bob) == nil, "no account without its passkey")
                try await store.createAccount(bob, passkey: passkey("bobs", owner: Fixture.bob, signCount: 0))
                let made = try #require(try await store.account(containerID: Fixture.container, userRecordName: Fixture.bob))
                #expect(made.passkeyCount == 1 && !made.hasPassword)

                try await store.createPasskeyChallenge(challenge("pending", purpose: .register, user: Fixture.bob))
                _ = try await store.beginAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.bob)
                #expect(try await store.redeemPasskeyChallenge("pending", containerID: Fixture.container, now: Fixture.now) == nil)
                try await store.finishAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.bob)
                #expect(try await store.passkey(containerID: Fixture.container, credentialID: "bobs") == nil)
                #expect(try await store.passkeys(containerID: Fixture.container, userRecordName: Fixture.alice).count == 1)
            },
            ConformanceCase("an operator's removal of second factors takes the authenticator app, recovery codes and passkeys, and every session") { store in
                let recorder = EventRecorder(store)
                try await makeAccount(store, Fixture.alice, "alice@example.com")
                try await store.addPasskey(passkey("k1", owner: Fixture.alice, signCount: 0))
                try await store.changeAccount(containerID: Fixture.container, userRecordName: Fixture.alice, change: .pendingTOTP(sealedSecret: "sealed"))
                try await store.changeAccount(
                    containerID: Fixture.container, userRecordName: Fixture.alice, change: .enableTOTP(recoveryCodeHashes: ["r1", "r2"], step: 1)
                )
                try await store.createSession(Session(
                    id: "s1", containerID: Fixture.container, userRecordName: Fixture.alice, createdAt: Fixture.now, expiresAt: Fixture.now + 10_000
                ))
                let changed = try await store.changeAccount(containerID: Fixture.container, userRecordName: Fixture.alice, change: .removeSecondFactors)
                #expect(!changed.hasSecondFactor && changed.passkeyCount == 0, "\(changed)")
                #expect(changed.secondFactor.sealedTOTPSecret == nil && changed.secondFactor.recoveryCodeHashes.isEmpty, "\(changed)")
                #expect(try await store.session(id: "s1") == nil)
                try await store.catchUpEvents()
                #expect(recorder.events.contains(.sessionEnded(sessionID: "s1")))
            },
        ]
    }

    private static func makeAccount(_ store: any Store, _ user: String, _ email: String) async throws {
        try await store.createAccount(Account(
            containerID: Fixture.container, userRecordName: user, emailAddress: email, passwordHash: "h", givenName: nil, familyName: nil,
            createdAt: Fixture.now
        ))
    }

    private static func challenge(
        _ value: String, purpose: PasskeyChallenge.Purpose, user: String? = nil, details: String? = nil, expiresAt: Int64 = Fixture.now + 300_000
    ) -> PasskeyChallenge {
        PasskeyChallenge(
            challenge: value, containerID: Fixture.container, purpose: purpose, userRecordName: user, details: details, createdAt: Fixture.now - 10,
            expiresAt: expiresAt
        )
    }

    private static func passkey(_ id: String, owner: String, signCount: Int64, createdAt: Int64 = Fixture.now) -> Passkey {
        Passkey(
            containerID: Fixture.container, credentialID: id, userRecordName: owner, publicKey: "cose-" + id, signCount: signCount, name: "Phone",
            isBackedUp: signCount == 0, createdAt: createdAt
        )
    }
}
