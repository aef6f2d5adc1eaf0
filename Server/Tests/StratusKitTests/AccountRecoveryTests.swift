import Foundation
import StratusKit
import StratusMail
import StratusStoreTesting
import Testing

/// The SDK's account steps against a live server whose mail goes to a real SMTP server.
@Suite struct AccountRecoveryTests {
    /// Runs `body` with a server mailing through a fresh SMTP sink.
    static func run(_ body: @escaping @Sendable (KitTestServer, MailSink) async throws -> Void) async throws {
        guard let sink = try await MailSink.start() else { return }
        defer { sink.stop() }
        let settings = try SMTPSettings(url: sink.url())
        try await KitTestServer.run(configure: { $0.smtp = settings }) { server in try await body(server, sink) }
    }

    /// The six-digit code of the `index`th message (from 1).
    static func code(_ sink: MailSink, message index: Int) async throws -> String {
        let text = try await sink.waitForMessages(count: index)[index - 1].text ?? ""
        return try #require(text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.count == 6 && $0.allSatisfy(\.isNumber) })
    }

    @Test("verify, reset, change password and address, sign in by code, list and end sessions, delete")
    func everyStep() async throws {
        try await Self.run { server, sink in
            let phone = server.container()
            try await phone.signUp(email: "ann@example.com", password: "correct horse battery", deviceName: "Ann's phone")
            #expect(try await phone.account().isEmailVerified == false)
            try await phone.verifyEmail(code: try await Self.code(sink, message: 1))
            #expect(try await phone.account().isEmailVerified)

            let laptop = server.container()
            try await laptop.sendSignInCode(to: "ann@example.com")
            try await laptop.signIn(email: "ann@example.com", code: try await Self.code(sink, message: 2), deviceName: "Laptop")
            let sessions = try await phone.sessions()
            #expect(sessions.map(\.deviceName) == ["Laptop", "Ann's phone"])
            #expect(sessions.map(\.isCurrent) == [false, true])
            try await phone.endSession(sessions[0].id)
            await #expect { try await laptop.privateCloudDatabase.allRecordZones() } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated
            }

            try await phone.changePassword(from: "correct horse battery", to: "battery staple horse")
            try await phone.changeEmail(to: "ann@new.example", password: "battery staple horse")
            try await phone.confirmEmailChange(code: try await Self.code(sink, message: 3))
            #expect(try await phone.account().emailAddress == "ann@new.example")

            let forgetful = server.container()
            try await forgetful.sendPasswordReset(to: "ann@new.example")
            try await forgetful.sendPasswordReset(to: "nobody@new.example")
            try await forgetful.resetPassword(email: "ann@new.example", code: try await Self.code(sink, message: 4), newPassword: "a brand new one")
            await #expect { try await phone.account() } throws: { error in (error as? StratusError)?.code == .notAuthenticated }
            try await forgetful.signIn(email: "ann@new.example", password: "a brand new one")
            let archive = try await forgetful.exportAccountData()
            #expect(archive.range(of: Data("manifest.json".utf8)) != nil && archive.range(of: Data("ann@new.example".utf8)) != nil)
            try await forgetful.sendAccountDeletionCode()
            try await forgetful.deleteAccount(code: try await Self.code(sink, message: 5))
            #expect(!forgetful.isSignedIn)
            await #expect { try await server.container().signIn(email: "ann@new.example", password: "a brand new one") } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated
            }
            #expect(try sink.messages().count == 5, "nothing was mailed to an address without an account")
        }
    }

    @Test("an authenticator app: set up, confirmed, asked at sign-in, a recovery code instead, and turned off")
    func authenticatorApp() async throws {
        try await KitTestServer.run { server in
            let phone = server.container()
            try await phone.signUp(email: "ann@example.com", password: "correct horse battery")
            let setup = try await phone.setUpAuthenticatorApp(password: "correct horse battery")
            #expect(setup.otpauthURI.contains(setup.secret))
            let step = SoftwareAuthenticator.step
            let recoveryCodes = try await phone.confirmAuthenticatorApp(code: SoftwareAuthenticator.code(secret: setup.secret, step: step))
            #expect(recoveryCodes.count == 10)
            #expect(try await phone.account().isAuthenticatorAppOn)

            let laptop = server.container()
            var pending: String?
            do {
                try await laptop.signIn(email: "ann@example.com", password: "correct horse battery")
                Issue.record("signed in without the second factor")
            } catch let error as StratusError {
                #expect(error.code == .notAuthenticated && error.serverErrorCode == "SECOND_FACTOR_REQUIRED")
                pending = error.secondFactorToken
            }
            let token = try #require(pending)
            try await laptop.signIn(secondFactorToken: token, code: SoftwareAuthenticator.code(secret: setup.secret, step: step + 1))
            #expect(laptop.isSignedIn)

            let tablet = server.container()
            do {
                try await tablet.signIn(email: "ann@example.com", password: "correct horse battery")
            } catch let error as StratusError {
                try await tablet.signIn(secondFactorToken: try #require(error.secondFactorToken), recoveryCode: recoveryCodes[0])
            }
            #expect(tablet.isSignedIn)
            #expect(try await tablet.account().recoveryCodesLeft == 9)
            try await tablet.turnOffAuthenticatorApp(password: "correct horse battery", recoveryCode: recoveryCodes[1])
            try await server.container().signIn(email: "ann@example.com", password: "correct horse battery")
        }
    }
}
