import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// The console's People page and operator sign-in in headless Chromium: an administrator adds a developer, who
/// sets up an authenticator app, signs in with its code, is refused an owner's change, and finds it in the audit log.
@Suite(.serialized) struct ConsolePeopleBrowserTests {
    static let container = ConsoleBrowserTests.container

    @Test("an operator is added, sets up an authenticator, signs in with a code, gets a developer's rights and shows in the audit log")
    func peoplePage() async throws {
        try await ConsoleBrowserTests.Session.with("people") { session in
            let browser = session.browser
            try await session.go("#/people", heading: "People")
            try await browser.element("#new-operator-email").fill("dev@example.com")
            try await browser.element("#new-operator-name").fill("Dee Veloper")
            try await browser.element("#new-operator-password").fill("a long first password")
            try await browser.select("#new-operator-role", "developer")
            try await browser.element("#operator-form button[type=submit]").click()
            try await browser.waitForText("Added dev@example.com", in: "#notices")
            try await browser.waitForText("developer of", in: "#operators")

            try await browser.element("#sign-out").click()
            try await browser.element("#operator-email").fill("dev@example.com")
            try await browser.element("#operator-password").fill("a long first password")
            try await browser.element("#operator-enrol").click()
            let secret = try await browser.element("#operator-secret").text()
            let step = SoftwareAuthenticator.step
            try await browser.element("#operator-code").fill(SoftwareAuthenticator.code(secret: secret, step: step))
            try await browser.element("#operator-confirm").click()
            try await browser.waitForText("Your authenticator app is set up", in: "#operator-enrolment")
            try await browser.element("#operator-code").fill(SoftwareAuthenticator.code(secret: secret, step: step + 1))
            try await browser.element("#operator-sign-in button[type=submit]").click()
            // The console opens where it was: the People page, now as the developer.
            try await browser.waitForText("Signed in as dev@example.com", in: "main")

            // A developer may not change quotas: the server refuses, the console says why, and the audit log has it.
            try await session.go("#/quotas", heading: "Quotas")
            try await browser.element("#container-quotas-userStorageBytes").fill("1GB")
            try await browser.element("#container-quotas button[type=submit]").click()
            try await browser.waitForText("needs the owner role", in: "#notices")
            try await session.go("#/people", heading: "People")
            try await browser.waitForText("Signed in as dev@example.com", in: "main")
            try await browser.waitForText("Only administrators manage people", in: "main")
            try await browser.waitForText("dev@example.com", in: "#audit-table")
            try await browser.waitForText("Changed the container's quotas", in: "#audit-table")
            try await browser.waitForText("403", in: "#audit-table")
            try await session.screenshot("people")
        }
    }

    @Test("the admin key is rotated from the People page: the new key is shown once, the old one is refused, and the page's session ends")
    func adminKeyRotation() async throws {
        try await ConsoleBrowserTests.Session.with("admin-key") { session in
            let browser = session.browser
            try await session.go("#/people", heading: "People")
            try await browser.waitForText("The shared admin key is in use", in: "#admin-key-state")
            try await browser.element("#rotate-admin-key").click()
            #expect(try await browser.acceptDialog().contains("stops working on every node"))
            let key = try await browser.element("#new-admin-key").text()
            #expect(key.count == 64, "\(key)")
            try await session.screenshot("admin-key-rotated")
            let (old, _) = try await session.server.send("GET", "/admin/1/containers", headers: ["Authorization": "Bearer \(ServerProcess.adminKey)"])
            #expect(old == 401)
            let (new, _) = try await session.server.send("GET", "/admin/1/admin-key", headers: ["Authorization": "Bearer \(key)"])
            #expect(new == 200)
            // The page's session was started with the old key: the console asks to sign in again.
            try await browser.session("POST", "/refresh")
            _ = try await browser.element("input#admin-key", timeout: 30)
        }
    }
}
