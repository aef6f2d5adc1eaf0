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
            _ = try await browser.waitForText("Sign in to \(Self.container)", in: "h1")
            try await browser.screenshot("account-sign-in")
            try await browser.element("#email").fill("ann@example.com")
            try await browser.element("#password").fill("wrong password")
            try await browser.element("#sign-in").click()
            _ = try await browser.waitForText("The email address or password is wrong")
            try await browser.element("#password").fill("correct horse")
            try await browser.element("#sign-in").click()
            var location = ""
            try await browser.waitUntil("the browser is back at the app") {
                location = (try await browser.session("GET", "/url") as? String) ?? ""
                return location.hasPrefix(appPage + "?ckWebAuthToken=")
            }
            let session = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
            let encoded = session.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let (caller, _) = try await server.send("GET", "/database/1/\(Self.container)/development/public/users/caller?ckAPIToken=\(token)&ckWebAuthToken=\(encoded)")
            #expect(caller == 200)
        } catch {
            try? await browser.screenshot("account-sign-in-failure")
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
