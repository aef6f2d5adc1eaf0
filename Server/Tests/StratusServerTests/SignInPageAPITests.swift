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
}
