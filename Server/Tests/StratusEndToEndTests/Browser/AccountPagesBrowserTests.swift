import Foundation
import StratusStoreTesting
import Testing

/// The account pages that mail links open, in headless Chromium against a real `stratus serve` mailing through a
/// real SMTP server.
@Suite(.serialized) struct AccountPagesBrowserTests {
    static let container = "iCloud.com.example.Pages"

    @Test("a reset link from the mail opens a page where a new password is typed, which then signs in")
    func resetInTheBrowser() async throws {
        guard let sink = try await MailSink.start() else { return }
        defer { sink.stop() }
        let server = ServerProcess(dataFolder: EndToEndTests.temporaryFolder(), arguments: ["--quiet", "--smtp-url", sink.url()])
        try await server.start()
        defer { server.stop() }
        let token = try await server.createContainer(Self.container)
        let base = "/auth/1/\(Self.container)/development"
        let (status, _) = try await server.send("POST", "\(base)/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"ann@example.com","password":"correct horse"}"#)
        #expect(status == 201)
        _ = try await server.send("POST", "\(base)/password/reset/send?ckAPIToken=\(token)", body: #"{"emailAddress":"ann@example.com"}"#)
        let text = try #require(try await sink.waitForMessages(count: 2)[1].text)
        let link = try #require(text.split(whereSeparator: \.isWhitespace).map(String.init).first { $0.contains("/link?token=") })
        #expect(link.hasPrefix(server.baseURL), "the link points at the server: \(link)")

        let browser = try await WebDriver()
        do {
            try await browser.open(link)
            _ = try await browser.waitForText("Choose a new password", in: "h1")
            try await browser.screenshot("account-reset-form")
            try await browser.element("#newPassword").fill("battery staple")
            try await browser.element("#confirmPassword").fill("battery stapler")
            try await browser.element("button").click()
            _ = try await browser.waitForText("The two passwords differ")
            try await browser.element("#newPassword").fill("battery staple")
            try await browser.element("#confirmPassword").fill("battery staple")
            try await browser.element("button").click()
            _ = try await browser.waitForText("Your password is changed", in: "h1")
            try await browser.screenshot("account-reset-done")
            try await browser.open(link)
            _ = try await browser.waitForText("This link no longer works", in: "h1")
        } catch {
            try? await browser.screenshot("account-reset-failure")
            await browser.quit()
            throw error
        }
        await browser.quit()
        let (signedIn, answer) = try await server.send("POST", "\(base)/signin?ckAPIToken=\(token)", body: #"{"emailAddress":"ann@example.com","password":"battery staple"}"#)
        #expect(signedIn == 200, "\(answer)")
    }

    @Test("a web app's sign-in: the page from 421's redirectURL signs in with a password and returns to the app with a working token")
    func signInPage() async throws {
        let server = ServerProcess(dataFolder: EndToEndTests.temporaryFolder(), arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let token = try await server.createContainer(Self.container)
        // The app's own page: this server's health check stands in for it.
        let appPage = server.baseURL + "/healthz"
        _ = try await server.admin.send("PUT", "/admin/1/\(Self.container)/accounts/settings", body: Data(#"{"redirectURLs":["\#(appPage)"]}"#.utf8))
        let base = "/auth/1/\(Self.container)/development"
        let (status, _) = try await server.send("POST", "\(base)/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"ann@example.com","password":"correct horse"}"#)
        #expect(status == 201)
        let (required, answer) = try await server.send("POST", "/database/1/\(Self.container)/development/private/zones/list?ckAPIToken=\(token)", body: "{}")
        let signInURL = try #require(answer["redirectURL"] as? String, "\(required) \(answer)")

        let browser = try await WebDriver()
        do {
            try await browser.open(signInURL + "?redirect=" + appPage.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            _ = try await browser.waitForText("Sign in to Pages", in: "h1")   // the container ID's last part: no appName is set
            try await browser.screenshot("account-sign-in")
            try await browser.element("#email").fill("ann@example.com")
            try await browser.element("#password").fill("wrong password")
            try await browser.element("#sign-in").click()
            _ = try await browser.waitForText("The email address or password is wrong")
            try await browser.element("#password").fill("correct horse")
            try await browser.element("#sign-in").click()
            let encoded = try await Self.tokenBackAtApp(browser, appPage)
            let (caller, _) = try await server.send("GET", "/database/1/\(Self.container)/development/public/users/caller?ckAPIToken=\(token)&ckWebAuthToken=\(encoded)")
            #expect(caller == 200)
        } catch {
            try? await browser.screenshot("account-sign-in-failure")
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    @Test("a passkey made by Chromium's authenticator through the API signs in on the hosted page, which returns to the app")
    func passkeyInTheBrowser() async throws {
        let server = ServerProcess(dataFolder: EndToEndTests.temporaryFolder(), arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let token = try await server.createContainer(Self.container)
        // WebAuthn takes a domain for the relying party, not an address: the browser uses the server as localhost.
        let site = server.baseURL.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        let appPage = site + "/healthz"
        _ = try await server.admin.send("PUT", "/admin/1/\(Self.container)/accounts/settings", body: Data(#"{"redirectURLs":["\#(appPage)"]}"#.utf8))
        let signInPage = "\(site)/account/1/\(Self.container)/development/signin?redirect=" + appPage.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!

        let browser = try await WebDriver()
        do {
            let added = try await browser.session("POST", "/webauthn/authenticator", [
                "protocol": "ctap2", "transport": "internal", "hasResidentKey": true, "hasUserVerification": true, "isUserVerified": true,
                "automaticPresenceSimulation": true,
            ])
            let authenticator = try #require(added as? String, "a virtual authenticator: \(String(describing: added))")
            try await browser.open(signInPage)
            _ = try await browser.waitForText("Sign in to Pages", in: "h1")   // the container ID's last part: no appName is set
            // The app's sign-up, in the page's origin: options from the API, a passkey from the browser, the answer back.
            let made = try await browser.script(Self.signUpScript, ["/auth/1/\(Self.container)/development", token, "fay@example.com"])
            let answer = try #require(made as? [String: Any], "\(String(describing: made))")
            #expect(answer["status"] as? Int == 201, "sign-up with Chromium's passkey: \(answer)")
            let user = try #require((answer["body"] as? [String: Any])?["userRecordName"] as? String, "\(answer)")

            try await browser.open(signInPage)
            let button = try await browser.element("#passkey")
            try await browser.waitUntil("the passkey button shows") { try await button.isDisplayed() }
            try await browser.screenshot("account-sign-in-passkey")
            try await button.click()
            let encoded = try await Self.tokenBackAtApp(browser, appPage)
            let (caller, who) = try await server.send("GET", "/database/1/\(Self.container)/development/public/users/caller?ckAPIToken=\(token)&ckWebAuthToken=\(encoded)")
            #expect(caller == 200 && "\(who)".contains(user), "\(caller) \(who)")
            let credentials = try await browser.session("GET", "/webauthn/authenticator/\(authenticator)/credentials") as? [[String: Any]]
            #expect(credentials?.count == 1 && credentials?.first?["isResidentCredential"] as? Bool == true, "\(String(describing: credentials))")
        } catch {
            try? await browser.screenshot("account-sign-in-passkey-failure")
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// Signs up with a passkey from the page, as a web app would: `arguments` are the API's auth path, the API token
    /// and the address. Answers `{status, body}` of `signup/passkey`.
    static let signUpScript = """
        const [base, token, email] = arguments;
        const bytes = (text) => {
          const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
          return Uint8Array.from(atob(base64 + "===".slice((base64.length + 3) % 4)), (c) => c.charCodeAt(0));
        };
        const text = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
        const post = async (path, body) => {
          const reply = await fetch(base + path + "?ckAPIToken=" + token, { method: "POST", body: JSON.stringify(body) });
          return { status: reply.status, body: await reply.json() };
        };
        return (async () => {
          const options = await post("/signup/passkey/options", { emailAddress: email });
          if (options.status !== 200) return options;
          const o = options.body;
          const credential = await navigator.credentials.create({ publicKey: {
            challenge: bytes(o.challenge), rp: o.rp, user: { id: bytes(o.user.id), name: o.user.name, displayName: o.user.displayName },
            pubKeyCredParams: o.pubKeyCredParams, timeout: o.timeout, authenticatorSelection: o.authenticatorSelection, attestation: o.attestation,
            excludeCredentials: o.excludeCredentials.map((c) => ({ type: "public-key", id: bytes(c.id) })),
          } });
          return await post("/signup/passkey", { deviceName: "Chromium", credential: { id: credential.id, type: "public-key", response: {
            clientDataJSON: text(credential.response.clientDataJSON), attestationObject: text(credential.response.attestationObject),
          } } });
        })();
        """

    /// Waits until the browser is back at `appPage` with a `ckWebAuthToken` in its query, and answers the token,
    /// percent-encoded for a query.
    static func tokenBackAtApp(_ browser: WebDriver, _ appPage: String) async throws -> String {
        var location = ""
        try await browser.waitUntil("the browser is back at the app") {
            location = (try await browser.session("GET", "/url") as? String) ?? ""
            return location.hasPrefix(appPage + "?ckWebAuthToken=")
        }
        let session = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value, "\(location)")
        return session.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
    }
}
