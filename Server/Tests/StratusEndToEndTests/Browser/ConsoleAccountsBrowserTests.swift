import Crypto
import Foundation
import StratusStoreTesting
import Testing

/// The console's account pages in headless Chromium: operators act on users, set how accounts work, edit and
/// preview mail, and see the mail sent.
@Suite(.serialized) struct ConsoleAccountsBrowserTests {
    static let container = ConsoleBrowserTests.container
    static let applePEM = P256.Signing.PrivateKey().pemRepresentation

    @Test("operators disable, enable and delete users, save account settings, edit and preview a mail template, and see queued mail")
    func accountPages() async throws {
        try await ConsoleBrowserTests.Session.with("accounts") { session in
            let browser = session.browser
            let server = session.server
            let token = try await session.admin("GET", "/admin/1/containers")
            let apiToken = ((token["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) ?? ""
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: server, container: Self.container)
            #expect(try await alice.send("public", "users/caller", "{}").0 == 200)

            // An anonymous user is listed as such.
            let (anonymousStatus, anonymous) = try await server.send("POST", "/auth/1/\(Self.container)/development/signup/anonymous?ckAPIToken=\(apiToken)", body: "{}")
            #expect(anonymousStatus == 201)
            let anonymousName = "anonymous " + ((anonymous["userRecordName"] as? String) ?? "").dropFirst().prefix(8)

            // Users: disabled (signed out at once), enabled again.
            try await session.go("#/users", heading: "Users")
            try await browser.waitForText("unverified", in: "#users-table")
            try await browser.waitForText("this device's session only", in: "#users-table")
            try await browser.element("button[aria-label='Disable alice@example.com']").click()
            try await browser.waitForText("alice@example.com: disabled and signed out.", in: "#notices")
            try await browser.waitForText("disabled", in: "#users-table")
            try await session.screenshot("users-disabled")
            #expect(try await alice.send("public", "users/caller", "{}").0 == 401, "a disabled user is signed out at once")
            try await browser.element("button[aria-label='Enable alice@example.com']").click()
            try await browser.waitForText("alice@example.com: enabled.", in: "#notices")

            // A user who lost their passkey: the operator removes their second factors.
            let signedInAgain = try await SignedInUser.signIn("alice@example.com", container: Self.container, on: server)
            try await signedInAgain.addPasskey(with: SoftwarePasskeys(origin: server.baseURL))
            try await browser.session("POST", "/refresh")
            try await browser.waitForText("1 passkey", in: "#users-table")
            try await browser.element("button[aria-label='Remove second factors alice@example.com']").click()
            try await browser.waitForText("alice@example.com: second factors removed and signed out.", in: "#notices")
            try await browser.waitUntil("the list shows no passkey") { try await !browser.element("#users-table").text().contains("passkey") }
            #expect(try await signedInAgain.send("public", "users/caller", "{}").0 == 401, "removing the second factors signs the user out")

            // Account settings.
            try await session.go("#/accounts", heading: "Accounts")
            try await browser.waitForText("password: 1", in: "#methods-in-use")
            try await browser.element("#app-name").fill("Notes")
            try await browser.select("#email-verification", "required")
            try await browser.element("#anonymous-lifetime").fill("7")
            try await browser.element("#apple-client-ids").fill("com.example.Notes, com.example.Notes.web")
            try await browser.element("#cloudkit-source").fill("https://api.apple-cloudkit.com iCloud.com.example.App production tok123")
            try await browser.element("#apple-team-id").fill("ABCDE12345")
            try await browser.element("#apple-key-id").fill("KEY1234567")
            try await browser.element("#openid-providers").fill("acme https://sso.example.com notes-app notes-web")
            try await browser.element("#passkey-rp-id").fill("example.com")
            try await browser.element("#passkey-origins").fill("https://notes.example.com, android:apk-key-hash:abc")
            try await browser.element("#passkey-apple-apps").fill("ABCDE12345.com.example.Notes")
            try await browser.element("#passkey-android-apps").fill("com.example.notes " + String(repeating: "ab", count: 32))
            try await browser.element("#account-settings button[type=submit]").click()
            try await browser.waitForText("Account settings saved.", in: "#notices")
            let settings = try await session.admin("GET", "/admin/1/\(Self.container)/accounts/settings")
            #expect(settings["appName"] as? String == "Notes" && settings["emailVerification"] as? String == "required", "\(settings)")
            #expect(settings["passkeyRelyingPartyID"] as? String == "example.com" && settings["anonymousAccountLifetimeDays"] as? Int == 7, "\(settings)")
            #expect(settings["passkeyOrigins"] as? [String] == ["https://notes.example.com", "android:apk-key-hash:abc"], "\(settings)")
            #expect(settings["passkeyAppleAppIDs"] as? [String] == ["ABCDE12345.com.example.Notes"], "\(settings)")
            #expect(settings["appleClientIDs"] as? [String] == ["com.example.Notes", "com.example.Notes.web"], "\(settings)")
            let source = settings["cloudKitSource"] as? [String: Any]
            #expect(source?["containerID"] as? String == "iCloud.com.example.App" && source?["apiToken"] as? String == "tok123", "\(settings)")
            #expect(settings["appleTeamID"] as? String == "ABCDE12345" && settings["appleKeyID"] as? String == "KEY1234567", "\(settings)")
            let openID = (settings["openIDProviders"] as? [[String: Any]])?.first
            #expect(openID?["issuer"] as? String == "https://sso.example.com" && openID?["clientIDs"] as? [String] == ["notes-app", "notes-web"], "\(settings)")
            let android = (settings["passkeyAndroidApps"] as? [[String: Any]])?.first
            #expect(android?["packageName"] as? String == "com.example.notes", "\(settings)")
            #expect(android?["sha256CertFingerprints"] as? [String] == [Array(repeating: "AB", count: 32).joined(separator: ":")], "\(settings)")

            // Apple's key, stored sealed through the form: listed by name, never shown again.
            try await browser.waitForText("Sealed with secrets key", in: "#secrets-key")
            try await browser.select("#secret-name", "apple.privateKey")
            try await browser.element("#secret-value").fill(Self.applePEM)
            try await browser.element("#secret-form button[type=submit]").click()
            try await browser.waitForText("Secret stored.", in: "#notices")
            try await browser.waitForText("apple.privateKey", in: "#secret-list")
            let secrets = try await session.admin("GET", "/admin/1/\(Self.container)/secrets")
            #expect("\(secrets)".contains("apple.privateKey") && !"\(secrets)".contains("PRIVATE KEY"), "\(secrets)")
            try await browser.waitForText("No tokens waiting", in: "#pending-revocations")

            // A mail template: edited, previewed with sample values, saved.
            try await browser.select("#template-kind", "reset-password")
            try await browser.waitUntil("the reset template is shown") {
                (try await browser.element("#template-subject").property("value") as? String)?.contains("Reset your") == true
            }
            try await browser.element("#template-subject").fill("Reset {{appName}} now")
            try await browser.element("#save-template").click()
            try await browser.waitForText("The reset-password mail in en is saved.", in: "#notices")
            try await browser.waitUntil("the saved wording is shown") {
                (try await browser.element("#template-subject").property("value") as? String) == "Reset {{appName}} now"
            }
            try await browser.element("#preview-template").click()
            try await browser.waitForText("Reset Notes now", in: "#template-preview")
            try await browser.waitForText("123456", in: "#template-preview")
            try await session.screenshot("accounts")
            let templates = try await session.admin("GET", "/admin/1/\(Self.container)/development/mail/templates")
            #expect((templates["templates"] as? [[String: Any]])?.first?["subject"] as? String == "Reset {{appName}} now")

            // The sign-up's verification mail waits: no SMTP server is configured.
            try await browser.waitForText("alice@example.com", in: "#recent-mail")
            try await browser.waitForText("No SMTP server is configured", in: "#recent-mail")

            // Deleted for good.
            try await session.go("#/users", heading: "Users")
            try await browser.element("button[aria-label='Delete alice@example.com']").click()
            try await browser.waitForText("alice@example.com: deleted.", in: "#notices")
            try await browser.element("button[aria-label='Delete \(anonymousName)']").click()
            try await browser.waitForText("\(anonymousName): deleted.", in: "#notices")
            try await browser.waitForText("No users have signed up yet", in: "main")
        }
    }
}
