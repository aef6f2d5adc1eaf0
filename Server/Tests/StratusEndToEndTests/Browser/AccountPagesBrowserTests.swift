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
}
