import StratusModel
import StratusStore
import Testing

/// Account settings, sessions, account changes, mailed codes and the mail queue.
extension StoreConformance {
    static var accountLifecycleCases: [ConformanceCase] {
        [
            ConformanceCase("account settings are kept per container and announced") { store in
                let recorder = EventRecorder(store)
                try await store.createContainer(ContainerInfo(id: Fixture.container, apiToken: "t", createdAt: 1))
                #expect(try await store.container(id: Fixture.container)?.accountSettings == AccountSettings())
                let settings = AccountSettings(
                    appName: "Notes", emailVerification: .required, senderAddress: "hello@example.com", languages: ["en", "fr"],
                    deletedUserPublicRecords: .delete
                )
                try await store.setAccountSettings(settings, containerID: Fixture.container)
                #expect(try await store.container(id: Fixture.container)?.accountSettings == settings)
                await #expect { try await store.setAccountSettings(settings, containerID: "iCloud.none") } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }
                try await store.catchUpEvents()
                #expect(recorder.events.contains(.containerChanged(containerID: Fixture.container)))
            },
            ConformanceCase("an account's sessions are listed newest first and ended all but one, each announced") { store in
                let recorder = EventRecorder(store)
                try await Self.makeAlice(store)
                for (index, device) in ["Phone", "Laptop", "Tablet"].enumerated() {
                    try await store.createSession(Session(
                        id: "s\(index)", containerID: Fixture.container, userRecordName: Fixture.alice, createdAt: Fixture.now + Int64(index),
                        expiresAt: Fixture.now + 10_000, deviceName: device
                    ))
                }
                try await store.createSession(Session(
                    id: "old", containerID: Fixture.container, userRecordName: Fixture.alice, createdAt: Fixture.now - 5, expiresAt: Fixture.now
                ))
                let listed = try await store.sessions(containerID: Fixture.container, userRecordName: Fixture.alice, now: Fixture.now + 10)
                #expect(listed.map(\.id) == ["s2", "s1", "s0"])
                #expect(listed.map(\.deviceName) == ["Tablet", "Laptop", "Phone"])
                #expect(listed.map(\.lastUsedAt) == [Fixture.now + 2, Fixture.now + 1, Fixture.now])
                try await store.touchSession(id: "s0", at: Fixture.now + 500)
                try await store.touchSession(id: "s0", at: Fixture.now + 100)
                #expect(try await store.session(id: "s0")?.lastUsedAt == Fixture.now + 500)

                let ended = try await store.endSessions(containerID: Fixture.container, userRecordName: Fixture.alice, keeping: "s1")
                #expect(Set(ended) == ["s0", "s2", "old"])
                #expect(try await store.sessions(containerID: Fixture.container, userRecordName: Fixture.alice, now: Fixture.now).map(\.id) == ["s1"])
                try await store.catchUpEvents()
                #expect(Set(recorder.events) == Set(ended.map { StoreEvent.sessionEnded(sessionID: $0) }))
            },
            ConformanceCase("a new password ends the other sessions, disabling ends all, and an address is not taken twice") { store in
                try await Self.makeAlice(store)
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: Fixture.bob, emailAddress: "bob@example.com", passwordHash: "h",
                    givenName: nil, familyName: nil, createdAt: Fixture.now
                ))
                for id in ["s1", "s2"] {
                    try await store.createSession(Session(
                        id: id, containerID: Fixture.container, userRecordName: Fixture.alice, createdAt: Fixture.now, expiresAt: Fixture.now + 10_000
                    ))
                }
                let changed = try await store.changeAccount(
                    containerID: Fixture.container, userRecordName: Fixture.alice, change: .password(hash: "new", keepingSession: "s2")
                )
                #expect(changed.passwordHash == "new")
                #expect(try await store.session(id: "s1") == nil)
                #expect(try await store.session(id: "s2") != nil)

                let verified = try await store.changeAccount(containerID: Fixture.container, userRecordName: Fixture.alice, change: .verifyEmail)
                #expect(verified.isEmailVerified)
                await #expect {
                    try await store.changeAccount(containerID: Fixture.container, userRecordName: Fixture.alice, change: .emailAddress("bob@example.com"))
                } throws: { error in
                    (error as? StorageError)?.code == .alreadyExists
                }
                let moved = try await store.changeAccount(
                    containerID: Fixture.container, userRecordName: Fixture.alice, change: .emailAddress("alice@new.example")
                )
                #expect(moved.emailAddress == "alice@new.example" && moved.isEmailVerified)
                #expect(try await store.account(containerID: Fixture.container, emailAddress: "alice@example.com") == nil)

                let disabled = try await store.changeAccount(containerID: Fixture.container, userRecordName: Fixture.alice, change: .disabled(true))
                #expect(disabled.isDisabled)
                #expect(try await store.session(id: "s2") == nil)
                let enabled = try await store.changeAccount(containerID: Fixture.container, userRecordName: Fixture.alice, change: .disabled(false))
                #expect(!enabled.isDisabled)
                await #expect {
                    try await store.changeAccount(containerID: Fixture.container, userRecordName: "_nobody", change: .verifyEmail)
                } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }
            },
            ConformanceCase("a mailed code replaces the earlier one, queues its mail in the same step and works once") { store in
                let recorder = EventRecorder(store)
                try await Self.makeAlice(store)
                let first = Self.code("c1", link: "l1")
                try await store.createAccountCode(first, mail: Self.mail(to: "alice@example.com"))
                let second = Self.code("c2", link: "l2")
                try await store.createAccountCode(second, mail: Self.mail(to: "alice@example.com"))
                #expect(try await store.accountCode(containerID: Fixture.container, linkHash: "l1", now: Fixture.now) == nil)
                #expect(try await store.accountCode(containerID: Fixture.container, linkHash: "l2", now: Fixture.now) == second)
                #expect(
                    try await store.accountCode(containerID: Fixture.container, userRecordName: Fixture.alice, purpose: .resetPassword, now: Fixture.now)
                        == second)
                #expect(try await store.accountCode(containerID: Fixture.container, linkHash: "l2", now: second.expiresAt + 1) == nil)
                #expect(try await store.dueMail(now: Fixture.now, limit: 10).count == 2)
                try await store.catchUpEvents()
                #expect(recorder.events.filter { $0 == .mailQueued }.count == 2)

                // Two redemptions at once: exactly one changes the password.
                async let one = Self.outcome { try await store.redeemAccountCode(id: "c2", now: Fixture.now, change: .password(hash: "p1", keepingSession: nil)) }
                async let two = Self.outcome { try await store.redeemAccountCode(id: "c2", now: Fixture.now, change: .password(hash: "p2", keepingSession: nil)) }
                let outcomes = await [one, two]
                #expect(outcomes.filter { $0 == nil }.count == 1, "one redemption wins: \(outcomes)")
                #expect(outcomes.compactMap { $0 }.allSatisfy { $0 == StorageError.Code.notFound })
                let hash = try await store.account(containerID: Fixture.container, userRecordName: Fixture.alice)?.passwordHash
                #expect(hash == "p1" || hash == "p2")
            },
            ConformanceCase("a code expires, and dies after its allowed wrong guesses") { store in
                try await Self.makeAlice(store)
                let code = Self.code("c1", link: "l1")
                try await store.createAccountCode(code, mail: Self.mail(to: "alice@example.com"))
                await #expect {
                    try await store.redeemAccountCode(id: "c1", now: code.expiresAt + 1, change: .verifyEmail)
                } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }
                try await store.recordFailedCodeAttempt(id: "c1", limit: 3)
                try await store.recordFailedCodeAttempt(id: "c1", limit: 3)
                #expect(try await store.accountCode(containerID: Fixture.container, linkHash: "l1", now: Fixture.now)?.failedAttempts == 2)
                try await store.recordFailedCodeAttempt(id: "c1", limit: 3)
                #expect(try await store.accountCode(containerID: Fixture.container, linkHash: "l1", now: Fixture.now) == nil)
            },
            ConformanceCase("the mail queue hands out due mail, retries later, and keeps no bodies once sent or given up") { store in
                let recorder = EventRecorder(store)
                let first = try await store.queueMail(Self.mail(to: "a@example.com"), now: Fixture.now)
                let second = try await store.queueMail(Self.mail(to: "b@example.com", html: "<p>hi</p>"), now: Fixture.now + 1)
                #expect(try await store.nextMailDue() == Fixture.now)
                #expect(try await store.waitingMail() == [Fixture.container: 2])
                let due = try await store.dueMail(now: Fixture.now + 1, limit: 10)
                #expect(due.map(\.id) == [first, second])
                #expect(due[1].mail == Self.mail(to: "b@example.com", html: "<p>hi</p>"))
                #expect(due[0].status == .queued && due[0].attempts == 0 && due[0].queuedAt == Fixture.now)

                try await store.markMailFailed(id: first, error: "421 try later", retryAt: Fixture.now + 5000)
                try await store.markMailSent(id: second, at: Fixture.now + 2)
                #expect(try await store.dueMail(now: Fixture.now + 10, limit: 10).isEmpty)
                #expect(try await store.nextMailDue() == Fixture.now + 5000)
                let retried = try await store.dueMail(now: Fixture.now + 5000, limit: 10)
                #expect(retried.map(\.id) == [first] && retried[0].attempts == 1 && retried[0].lastError == "421 try later")
                try await store.markMailFailed(id: first, error: "550 no such user", retryAt: nil)
                #expect(try await store.nextMailDue() == nil)
                #expect(try await store.waitingMail().isEmpty)

                let recent = try await store.recentMail(containerID: Fixture.container, limit: 10)
                #expect(recent.map(\.id) == [second, first])
                #expect(recent.map(\.status) == [.sent, .failed])
                #expect(recent[0].sentAt == Fixture.now + 2 && recent[1].attempts == 2)
                #expect(recent.allSatisfy { $0.mail.textBody.isEmpty && $0.mail.htmlBody == nil && $0.mail.subject == "Subject" })
                try await store.catchUpEvents()
                #expect(recorder.events == [.mailQueued, .mailQueued])
            },
            ConformanceCase("counters of different windows share the table: a short window's sweep keeps a longer one's count") { store in
                let hour: Int64 = 3_600_000
                let quarter: Int64 = 900_000
                try await store.recordSignInFailures(keys: ["mail-to:a"], now: Fixture.now, window: hour)
                try await store.recordSignInFailures(keys: ["account:b"], now: Fixture.now + 2 * quarter, window: quarter)
                try await store.recordSignInFailures(keys: ["mail-to:a"], now: Fixture.now + 3 * quarter, window: hour)
                let counted = try await store.signInFailures(keys: ["mail-to:a"], now: Fixture.now + 3 * quarter, window: hour)
                #expect(counted["mail-to:a"]?.count == 2, "\(counted)")
                // Past its own window, a count starts again at one.
                try await store.recordSignInFailures(keys: ["mail-to:a"], now: Fixture.now + 8 * quarter, window: hour)
                #expect(try await store.signInFailures(keys: ["mail-to:a"], now: Fixture.now + 8 * quarter, window: hour)["mail-to:a"]?.count == 1)
            },
            ConformanceCase("mail templates are saved per kind and language, replaced, and removed") { store in
                let template = MailTemplate(
                    containerID: Fixture.container, environment: .development, kind: "reset-password", language: "fr", subject: "Sujet",
                    textBody: "Code : {{code}}", htmlBody: nil, updatedAt: 1
                )
                try await store.saveMailTemplate(template)
                var replaced = template
                replaced.subject = "Nouveau"
                replaced.updatedAt = 2
                try await store.saveMailTemplate(replaced)
                #expect(try await store.mailTemplates(containerID: Fixture.container, environment: .development) == [replaced])
                #expect(try await store.mailTemplates(containerID: Fixture.container, environment: .production).isEmpty)
                try await store.deleteMailTemplate(containerID: Fixture.container, environment: .development, kind: "reset-password", language: "fr")
                #expect(try await store.mailTemplates(containerID: Fixture.container, environment: .development).isEmpty)
            },
        ]
    }

    private static func makeAlice(_ store: any Store) async throws {
        try await store.createAccount(Account(
            containerID: Fixture.container, userRecordName: Fixture.alice, emailAddress: "alice@example.com", passwordHash: "h",
            givenName: nil, familyName: nil, createdAt: Fixture.now
        ))
    }

    private static func code(_ id: String, link: String) -> AccountCode {
        AccountCode(
            id: id, containerID: Fixture.container, userRecordName: Fixture.alice, purpose: .resetPassword, codeHash: "hash-" + id,
            linkHash: link, createdAt: Fixture.now, expiresAt: Fixture.now + 1_800_000
        )
    }

    private static func mail(to recipient: String, html: String? = nil) -> OutgoingMail {
        OutgoingMail(
            containerID: Fixture.container, environment: .development, kind: "reset-password", language: "en", recipient: recipient,
            senderAddress: "app@example.com", senderName: "App", subject: "Subject", textBody: "Your code: 123456", htmlBody: html
        )
    }

    /// `nil` when `body` succeeds, else the code of the store error it threw.
    private static func outcome(_ body: () async throws -> Account) async -> StorageError.Code? {
        do {
            _ = try await body()
            return nil
        } catch {
            return (error as? StorageError)?.code ?? .internalFailure
        }
    }
}
