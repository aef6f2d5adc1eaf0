import StratusServices
import Foundation
import StratusModel
import StratusStoreTesting
import Testing

/// Verification, password reset, changes of address and password, and sign-in codes, with mail through a real
/// SMTP server.
@Suite struct AccountRecoveryAPITests {
    static let signUpBody = #"{"emailAddress":"alice@example.com","password":"correct horse","deviceName":"Alice's phone"}"#

    @Test("sign-up mails a verification code; a wrong code is refused, the right one verifies once")
    func verification() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            let signUp = try await client.auth("signup", Self.signUpBody, token: token)
            #expect(signUp.status == 201 && signUp["emailVerified"] == .bool(false) && signUp["emailVerificationRequired"] == .bool(false))
            let session = try #require(signUp.string("ckWebAuthToken"))
            let mail = try #require(try await sink.waitForMessages(count: 1).first)
            #expect(mail.rcptTos == ["alice@example.com"] && mail.subject.contains("Confirm your email address"))
            let code = try #require(mail.code, "no code in \(mail.text ?? "")")
            #expect(mail.linkToken != nil)

            let account = try await client.authGet("account", token: token, session: session)
            #expect(account["emailVerified"] == .bool(false) && account["emailAddress"] == .string("alice@example.com"))
            let wrongCode = code == "000000" ? "111111" : "000000"
            let wrong = try await client.auth("email/verify", #"{"emailAddress":"alice@example.com","code":"\#(wrongCode)"}"#, token: token)
            #expect(wrong.status == 401 && wrong.errorCode == "AUTHENTICATION_FAILED")
            let right = try await client.auth("email/verify", #"{"code":"\#(code)"}"#, token: token, session: session)
            #expect(right.status == 200 && right["emailVerified"] == .bool(true), "\(right.json)")
            let again = try await client.auth("email/verify", #"{"code":"\#(code)"}"#, token: token, session: session)
            #expect(again.status == 401)
            #expect(try await client.authGet("account", token: token, session: session)["emailVerified"] == .bool(true))
        }
    }

    @Test("a container that requires verification signs nobody in before it; the mail's link verifies")
    func requiredVerification() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            let settings = try await client.send(
                .put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"emailVerification":"required","appName":"Notes"}"#,
                headers: client.admin
            )
            #expect(settings.status == 200 && settings["emailVerification"] == .string("required"), "\(settings.json)")
            let signUp = try await client.auth("signup", Self.signUpBody, token: token)
            #expect(signUp.status == 201 && signUp["ckWebAuthToken"] == nil && signUp["emailVerificationRequired"] == .bool(true), "\(signUp.json)")
            let refused = try await client.auth("signin", Self.signUpBody, token: token)
            #expect(refused.status == 403 && refused.errorCode == "ACCESS_DENIED", "\(refused.json)")

            let mail = try #require(try await sink.waitForMessages(count: 1).first)
            #expect(mail.subject == "Confirm your email address for Notes")
            let link = try #require(mail.linkToken)
            let verified = try await client.auth("email/verify", #"{"token":"\#(link)"}"#, token: token)
            #expect(verified.status == 200, "\(verified.json)")
            let signIn = try await client.auth("signin", Self.signUpBody, token: token)
            #expect(signIn.status == 200 && signIn["emailVerified"] == .bool(true))
            // A sign-in code would do as well, but the link's token is spent.
            #expect(try await client.auth("email/verify", #"{"token":"\#(link)"}"#, token: token).status == 401)
        }
    }

    @Test("a reset answers alike for unknown addresses, mails known ones, and its new password ends every session")
    func passwordReset() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            let first = try #require(try await client.auth("signup", Self.signUpBody, token: token).string("ckWebAuthToken"))
            let second = try #require(try await client.auth("signin", Self.signUpBody, token: token).string("ckWebAuthToken"))
            _ = try await sink.waitForMessages(count: 1)

            let unknown = try await client.auth("password/reset/send", #"{"emailAddress":"nobody@example.com"}"#, token: token)
            let known = try await client.auth("password/reset/send", #"{"emailAddress":"Alice@Example.com"}"#, token: token)
            #expect(unknown.status == 202 && known.status == 202)
            #expect(unknown.json == known.json)
            let messages = try await sink.waitForMessages(count: 2)
            #expect(messages.count == 2 && messages[1].subject.contains("Reset your"))
            #expect(!messages.contains { $0.rcptTos == ["nobody@example.com"] })
            let code = try #require(messages[1].code)

            let short = try await client.auth("password/reset", #"{"emailAddress":"alice@example.com","code":"\#(code)","newPassword":"short"}"#, token: token)
            #expect(short.status == 400)
            let reset = try await client.auth(
                "password/reset", #"{"emailAddress":"alice@example.com","code":"\#(code)","newPassword":"battery staple"}"#, token: token
            )
            #expect(reset.status == 200, "\(reset.json)")
            #expect(try await !client.isSignedIn(first, token: token))
            #expect(try await !client.isSignedIn(second, token: token))
            #expect(try await client.auth("signin", Self.signUpBody, token: token).status == 401)
            let signIn = try await client.auth("signin", #"{"emailAddress":"alice@example.com","password":"battery staple"}"#, token: token)
            #expect(signIn.status == 200)
            let reused = try await client.auth(
                "password/reset", #"{"emailAddress":"alice@example.com","code":"\#(code)","newPassword":"another one"}"#, token: token
            )
            #expect(reused.status == 401)
        }
    }

    @Test("a code dies after five wrong guesses, and a sixth request for mail in an hour is throttled")
    func guessingAndFlooding() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            _ = try await client.auth("signup", Self.signUpBody, token: token)
            _ = try await client.auth("signin/code/send", #"{"emailAddress":"alice@example.com"}"#, token: token)
            let code = try #require(try await sink.waitForMessages(count: 2)[1].code)
            for guess in 0..<5 {
                let wrong = String(format: "%06d", (Int(code)! + guess + 1) % 1_000_000)
                let reply = try await client.auth("signin/code", #"{"emailAddress":"alice@example.com","code":"\#(wrong)"}"#, token: token)
                #expect(reply.status == 401 || reply.status == 429, "\(reply.json)")
            }
            let late = try await client.auth("signin/code", #"{"emailAddress":"alice@example.com","code":"\#(code)"}"#, token: token)
            #expect(late.status == 401 || late.status == 429, "the right code after five wrong ones: \(late.json)")

            var statuses: [Int] = []
            for _ in 0..<5 {
                statuses.append(try await client.auth("password/reset/send", #"{"emailAddress":"bob@example.com"}"#, token: token).status)
            }
            #expect(statuses == [202, 202, 202, 202, 202])
            let throttled = try await client.auth("password/reset/send", #"{"emailAddress":"bob@example.com"}"#, token: token)
            #expect(throttled.status == 429 && throttled.errorCode == "THROTTLED" && throttled["retryAfter"] != nil, "\(throttled.json)")
        }
    }

    @Test("every message an address gets counts toward its five an hour: after the sign-up's verification, the fifth reset is refused")
    func signUpMailCounts() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            _ = try await client.auth("signup", Self.signUpBody, token: token)
            var statuses: [Int] = []
            for _ in 0..<5 {
                statuses.append(try await client.auth("password/reset/send", #"{"emailAddress":"alice@example.com"}"#, token: token).status)
            }
            #expect(statuses == [202, 202, 202, 202, 429], "the sign-up's mail and four resets make five messages: \(statuses)")
            let mail = try await sink.waitForMessages(count: 5)
            // With no appName set, mail names the app as people read it: the container ID's last part.
            #expect(mail[0].subject == "Confirm your email address for Tests" && mail[0].text?.contains("enter this code in Tests") == true, "\(mail[0].subject)")
        }
    }

    @Test("a sign-in code signs in once, with the device's name in the session list")
    func signInCode() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            _ = try await client.auth("signup", Self.signUpBody, token: token)
            let send = try await client.auth("signin/code/send", #"{"emailAddress":"alice@example.com"}"#, token: token)
            #expect(send.status == 202)
            let mail = try await sink.waitForMessages(count: 2)[1]
            #expect(mail.subject.contains("sign-in code"))
            let code = try #require(mail.code)
            let signIn = try await client.auth(
                "signin/code", #"{"emailAddress":"alice@example.com","code":"\#(code)","deviceName":"Laptop"}"#, token: token
            )
            #expect(signIn.status == 200 && signIn["emailVerified"] == .bool(true), "\(signIn.json)")
            let session = try #require(signIn.string("ckWebAuthToken"))
            #expect(try await client.isSignedIn(session, token: token))
            let sessions = try await client.authGet("sessions", token: token, session: session)
            guard case .array(let entries)? = sessions["sessions"] else { throw TestFailure("no sessions: \(sessions.json)") }
            #expect(entries.count == 2)
            #expect(entries.first?.objectValue?["deviceName"] == .string("Laptop") && entries.first?.objectValue?["current"] == .bool(true))
            #expect(entries.last?.objectValue?["deviceName"] == .string("Alice's phone"))
            let reused = try await client.auth("signin/code", #"{"emailAddress":"alice@example.com","code":"\#(code)"}"#, token: token)
            #expect(reused.status == 401)
        }
    }

    @Test("a new password with the old one ends the other sessions; a new address is confirmed from itself")
    func changes() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            let phone = try #require(try await client.auth("signup", Self.signUpBody, token: token).string("ckWebAuthToken"))
            let laptop = try #require(try await client.auth("signin", Self.signUpBody, token: token).string("ckWebAuthToken"))
            _ = try await sink.waitForMessages(count: 1)

            let wrongOld = try await client.auth("password/change", #"{"password":"not it at all","newPassword":"battery staple"}"#, token: token, session: phone)
            #expect(wrongOld.status == 401)
            let changed = try await client.auth("password/change", #"{"password":"correct horse","newPassword":"battery staple"}"#, token: token, session: phone)
            #expect(changed.status == 200, "\(changed.json)")
            #expect(try await client.isSignedIn(phone, token: token))
            #expect(try await !client.isSignedIn(laptop, token: token))

            let ask = try await client.auth("email/change/send", #"{"newEmailAddress":"alice@new.example","password":"battery staple"}"#, token: token, session: phone)
            #expect(ask.status == 202, "\(ask.json)")
            let mail = try await sink.waitForMessages(count: 2)[1]
            #expect(mail.rcptTos == ["alice@new.example"] && mail.subject.contains("new email address"))
            let moved = try await client.auth("email/change", #"{"code":"\#(try #require(mail.code))"}"#, token: token, session: phone)
            #expect(moved.status == 200, "\(moved.json)")
            let account = try await client.authGet("account", token: token, session: phone)
            #expect(account["emailAddress"] == .string("alice@new.example") && account["emailVerified"] == .bool(true))
            #expect(try await client.auth("signin", #"{"emailAddress":"alice@new.example","password":"battery staple"}"#, token: token).status == 200)
            #expect(try await client.auth("signin", #"{"emailAddress":"alice@example.com","password":"battery staple"}"#, token: token).status == 401)
        }
    }

    @Test("mail refused for now is sent again; the console's list shows it without its code")
    func retries() async throws {
        try await AccountMailSupport.run(sinkArguments: ["--refuse", "1"]) { client, sink in
            let token = try await client.createContainer()
            _ = try await client.auth("signup", Self.signUpBody, token: token)
            let mail = try #require(try await sink.waitForMessages(count: 1).first)
            // The server marks the message sent once the SMTP server's answer is in: a moment after it arrived.
            var list = try await client.send(.get, "/admin/1/\(TestServer.container)/mail", headers: client.admin)
            let deadline = ContinuousClock.now + .seconds(30)
            func firstStatus(_ reply: Reply) -> String? {
                guard case .array(let entries)? = reply["mail"] else { return nil }
                return entries.first?.objectValue?["status"]?.stringValue
            }
            while firstStatus(list) != "sent", ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                list = try await client.send(.get, "/admin/1/\(TestServer.container)/mail", headers: client.admin)
            }
            guard case .array(let entries)? = list["mail"], let entry = entries.first?.objectValue else { throw TestFailure("\(list.json)") }
            #expect(entry["status"] == .string("sent") && entry["attempts"] == .integer(2), "\(entry)")
            #expect(entry["lastError"].map { "\($0)" }?.contains("451") == true)
            #expect(!"\(list.json)".contains(try #require(mail.code)))
        }
    }

    @Test("an operator mails a user a reset, whose code sets a new password")
    func operatorReset() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            let user = try #require(try await client.auth("signup", Self.signUpBody, token: token).string("userRecordName"))
            let sent = try await client.send(.post, "/admin/1/\(TestServer.container)/development/users/\(user)/reset", headers: client.admin)
            #expect(sent.status == 202)
            let mail = try await sink.waitForMessages(count: 2)[1]
            #expect(mail.subject.contains("Reset your"))
            let link = try #require(mail.linkToken)
            let reset = try await client.auth("password/reset", #"{"token":"\#(link)","newPassword":"battery staple"}"#, token: token)
            #expect(reset.status == 200, "\(reset.json)")
            #expect(try await client.auth("signin", #"{"emailAddress":"alice@example.com","password":"battery staple"}"#, token: token).status == 200)
        }
    }
}
