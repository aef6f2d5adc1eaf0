import Foundation
import HTTPTypes
import StratusModel
import StratusStoreTesting
import Testing

/// The hosted sign-in page web apps reach from `421 AUTHENTICATION_REQUIRED`.
@Suite struct SignInPageAPITests {
    static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
    static let redirect = "https://app.example.com/signed-in"

    static func page(_ reply: Reply) -> String { reply.json.stringValue ?? "" }

    /// The `ckWebAuthToken` a 303 answer sends the browser back with.
    static func token(_ reply: Reply) -> String? {
        guard reply.status == 303, let location = reply.headers[.location], location.hasPrefix(redirect + "?") else { return nil }
        return URLComponents(string: location)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value
    }

    @Test("421 names the page; it sends only to allowed addresses, refuses a wrong password, and returns a working token")
    func password() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.auth("signup", #"{"emailAddress":"ann@example.com","password":"correct horse"}"#, token: token)
            let anonymous = try await client.send(.post, "/database/1/\(TestServer.container)/development/private/zones/list?ckAPIToken=\(token)", body: "{}")
            #expect(anonymous.status == 421 && anonymous.string("redirectURL")?.hasSuffix("/account/1/\(TestServer.container)/development/signin") == true)
            let path = "/account/1/\(TestServer.container)/development/signin"
            let query = "?redirect=" + Self.redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let refused = try await client.send(.get, path + query)
            #expect(refused.status == 400 && Self.page(refused).contains("open it from"))

            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"redirectURLs":["https://app.example.com/"]}"#, headers: client.admin)
            let shown = try await client.send(.get, path + query)
            #expect(shown.status == 200 && Self.page(shown).contains("name=\"password\""))
            #expect(shown.headers[.contentSecurityPolicy]?.contains("form-action 'self' https://app.example.com") == true)
            let elsewhere = try await client.send(.get, path + "?redirect=https%3A%2F%2Fevil.example%2F")
            #expect(elsewhere.status == 400)

            let redirect = Self.redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let wrong = try await client.send(.post, path, body: "redirect=\(redirect)&step=password&email=ann%40example.com&password=nope", headers: Self.form)
            #expect(wrong.status == 400 && Self.page(wrong).contains("The email address or password is wrong"))
            let right = try await client.send(.post, path, body: "redirect=\(redirect)&step=password&email=ann%40example.com&password=correct+horse", headers: Self.form)
            let session = try #require(Self.token(right), "\(right.status) \(right.headers)")
            #expect(try await client.isSignedIn(session, token: token))
            let sessions = try await client.authGet("sessions", token: token, session: session)
            #expect("\(sessions.json)".contains("Web browser"))
        }
    }

    @Test("opened without ?redirect= (CloudKit JS's popup), the page signs in and posts the session to the allowed origins only")
    func popup() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.auth("signup", #"{"emailAddress":"ann@example.com","password":"correct horse"}"#, token: token)
            let path = "/account/1/\(TestServer.container)/development/signin"
            let nowhere = try await client.send(.get, path)
            #expect(nowhere.status == 400 && Self.page(nowhere).contains("open it from"), "no origin is allowed yet: \(Self.page(nowhere))")

            let allowed = #"{"redirectURLs":["https://app.example.com/signed-in","https://App.example.com/other","http://127.0.0.1:8080/"]}"#
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: allowed, headers: client.admin)
            let shown = try await client.send(.get, path)
            let page = Self.page(shown)
            #expect(shown.status == 200 && page.contains("id=\"popup-only\" hidden") && !page.contains("name=\"redirect\""), "\(page)")
            #expect(shown.headers[.contentSecurityPolicy]?.contains("form-action 'self';") == true, "\(shown.headers)")

            let wrong = try await client.send(.post, path, body: "step=password&email=ann%40example.com&password=nope", headers: Self.form)
            #expect(wrong.status == 400 && Self.page(wrong).contains("The email address or password is wrong") && !Self.page(wrong).contains("name=\"redirect\""))
            let right = try await client.send(.post, path, body: "step=password&email=ann%40example.com&password=correct+horse", headers: Self.form)
            let done = Self.page(right)
            #expect(right.status == 200 && done.contains("id=\"signed-in\""), "\(right.status) \(done)")
            #expect(done.contains("data-origins=\"https://app.example.com http://127.0.0.1:8080\""), "\(done)")
            #expect(right.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true && right.headers[.cacheControl] == "no-store")
            let session = try #require(done.components(separatedBy: "data-session=\"").dropFirst().first?.prefix { $0 != "\"" })
            #expect(try await client.isSignedIn(String(session), token: token))
            let script = try await client.send(.get, "/account/1/passkeys.js")
            #expect((script.json.stringValue ?? "").contains("window.opener.postMessage({ ckSession: session, ckWebAuthToken: session }, origin)"))
        }
    }

    @Test("the authenticator app's code follows a right password or a mailed code, then the page returns to the app")
    func secondFactorAndCode() async throws {
        try await AccountMailSupport.run { client, sink in
            let token = try await client.createContainer()
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"redirectURLs":["https://app.example.com/"]}"#, headers: client.admin)
            let signUp = try await client.auth("signup", #"{"emailAddress":"ann@example.com","password":"correct horse"}"#, token: token)
            let session = try #require(signUp.string("ckWebAuthToken"))
            let setup = try await client.auth("second-factor/totp/setup", #"{"password":"correct horse"}"#, token: token, session: session)
            let secret = try #require(setup.string("secret"))
            let step = SoftwareAuthenticator.step
            _ = try await client.auth("second-factor/totp/confirm", #"{"code":"\#(SoftwareAuthenticator.code(secret: secret, step: step))"}"#, token: token, session: session)

            let path = "/account/1/\(TestServer.container)/development/signin"
            let redirect = Self.redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let first = try await client.send(.post, path, body: "redirect=\(redirect)&step=password&email=ann%40example.com&password=correct+horse", headers: Self.form)
            #expect(first.status == 200 && Self.page(first).contains("authenticator app"))
            let html = Self.page(first)
            let pending = try #require(html.components(separatedBy: "name=\"secondFactorToken\" value=\"").dropFirst().first?.prefix { $0 != "\"" })
            let wrong = try await client.send(.post, path, body: "redirect=\(redirect)&step=second-factor&secondFactorToken=\(pending)&code=000000", headers: Self.form)
            #expect(wrong.status == 400 || SoftwareAuthenticator.code(secret: secret, step: step + 1) == "000000")
            let code = SoftwareAuthenticator.code(secret: secret, step: step + 1)
            let second = try await client.send(.post, path, body: "redirect=\(redirect)&step=second-factor&secondFactorToken=\(pending)&code=\(code)", headers: Self.form)
            #expect(Self.token(second) != nil, "\(second.status) \(Self.page(second))")

            let asked = try await client.send(.post, path, body: "redirect=\(redirect)&step=send-code&email=ann%40example.com", headers: Self.form)
            #expect(asked.status == 200 && Self.page(asked).contains("a code is on its way"))
            let mailed = try #require(try await sink.waitForMessages(count: 2)[1].code)
            // The account uses an authenticator app: the mailed code is a first factor, and its code follows.
            let byCode = try await client.send(.post, path, body: "redirect=\(redirect)&step=code&email=ann%40example.com&code=\(mailed)", headers: Self.form)
            #expect(byCode.status == 200 && Self.page(byCode).contains("authenticator app"), "\(Self.page(byCode))")
        }
    }

    @Test("the page's passkey button: options from the page, the answer posted with its form, alone or after a password")
    func passkey() async throws {
        try await TestServer.run(configure: { $0.publicURL = "https://login.example.com" }) { client in
            let token = try await client.createContainer()
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"redirectURLs":["https://app.example.com/"]}"#, headers: client.admin)
            let authenticator = SoftwarePasskeys(origin: "https://login.example.com")
            let session = try #require(try await client.auth("signup", #"{"emailAddress":"ann@example.com","password":"correct horse"}"#, token: token).string("ckWebAuthToken"))
            let options: PasskeyCreationOptions = try await client.passkeyStep("passkeys/register/options", #"{"password":"correct horse"}"#, token: token, session: session)
            let registered = try await client.auth("passkeys/register", try PasskeyAPITests.json(RegisterPasskeyRequest(credential: authenticator.register(options))), token: token, session: session)
            #expect(registered.status == 201, "\(registered.json)")

            let path = "/account/1/\(TestServer.container)/development/signin"
            let redirect = Self.redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let shown = try await client.send(.get, path + "?redirect=" + redirect)
            #expect(Self.page(shown).contains("id=\"passkey\"") && Self.page(shown).contains("/account/1/passkeys.js"))
            #expect(shown.headers[.contentSecurityPolicy]?.contains("script-src 'self'; connect-src 'self'") == true, "\(shown.headers)")
            let script = try await client.send(.get, "/account/1/passkeys.js")
            #expect(script.status == 200 && (script.json.stringValue ?? "").contains("navigator.credentials.get"))

            func post(_ credential: PasskeyAssertion, token pending: String? = nil) async throws -> Reply {
                let json = try PasskeyAPITests.json(credential).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let extra = pending.map { "&secondFactorToken=" + $0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! } ?? ""
                return try await client.send(.post, path, body: "redirect=\(redirect)&step=passkey&credential=\(json)\(extra)", headers: Self.form)
            }
            let alone: PasskeyRequestOptions = try await Self.decode(try await client.send(.post, path + "/passkey/options", body: "{}"))
            #expect(alone.rpId == "login.example.com" && alone.userVerification == "required")
            let signedIn = try await post(try #require(authenticator.assert(alone)))
            #expect(try await client.isSignedIn(try #require(Self.token(signedIn), "\(signedIn.status) \(Self.page(signedIn))"), token: token))
            let forged = try await post(try #require(authenticator.assert(
                try await Self.decode(try await client.send(.post, path + "/passkey/options", body: "{}")), tampering: .init(signWithOtherKey: true)
            )))
            #expect(forged.status == 400 && Self.page(forged).contains("signature does not verify"), "\(Self.page(forged))")

            let afterPassword = try await client.send(
                .post, path, body: "redirect=\(redirect)&step=password&email=ann%40example.com&password=correct+horse", headers: Self.form
            )
            let page = Self.page(afterPassword)
            #expect(page.contains("Use a passkey") && !page.contains("authenticator app"), "\(page)")
            let pending = try #require(page.components(separatedBy: "name=\"secondFactorToken\" value=\"").dropFirst().first?.prefix { $0 != "\"" })
            let second: PasskeyRequestOptions = try await Self.decode(
                try await client.send(.post, path + "/passkey/options", body: #"{"secondFactorToken":"\#(pending)"}"#)
            )
            #expect(second.allowCredentials.count == 1)
            let finished = try await post(try #require(authenticator.assert(second, tampering: .init(userVerified: false))), token: String(pending))
            #expect(Self.token(finished) != nil, "\(finished.status) \(Self.page(finished))")
        }
    }

    static func decode<T: Decodable>(_ reply: Reply) throws -> T {
        guard reply.status == 200 else { throw TestFailure("\(reply.status): \(reply.json)") }
        var writer = JSONWriter()
        reply.json.write(to: &writer)
        return try JSONDecoder().decode(T.self, from: Data(writer.text.utf8))
    }
}

