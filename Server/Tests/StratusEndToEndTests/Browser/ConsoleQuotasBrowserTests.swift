import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// The console's Quotas page in headless Chromium: a container's quotas and the defaults set through the forms,
/// storage measured on demand and shown against the quota, and a save past it refused.
@Suite(.serialized) struct ConsoleQuotasBrowserTests {
    static let container = ConsoleBrowserTests.container

    @Test("operators set a container's storage quota and the default rates, measure storage and see a user at their quota")
    func quotasPage() async throws {
        try await ConsoleBrowserTests.Session.with("quotas") { session in
            let browser = session.browser
            let apps = try await session.admin("GET", "/admin/1/containers")
            let apiToken = ((apps["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) ?? ""
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: session.server, container: Self.container)
            let note = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"text":{"value":"\#(String(repeating: "n", count: 1500))"}}}}]}"#
            let (saved, answer) = try await alice.send("private", "records/modify", note)
            #expect(saved == 200, "\(answer)")

            try await session.go("#/quotas", heading: "Quotas")
            try await browser.element("#container-quotas-userStorageBytes").fill("1.5KB")
            try await browser.element("#container-quotas-publicStorageBytes").fill("none")
            try await browser.element("#container-quotas button[type=submit]").click()
            try await browser.waitForText("Saved quotas of", in: "#notices")
            try await browser.element("#default-quotas-addressRequestsPerMinute").fill("100000")
            try await browser.element("#default-quotas button[type=submit]").click()
            try await browser.waitForText("Saved defaults", in: "#notices")
            let stored = try await session.admin("GET", "/admin/1/quotas")
            let own = (stored["containers"] as? [String: [String: Any]])?[Self.container] ?? [:]
            #expect(own["userStorageBytes"] as? Int == 1536 && own["publicStorageBytes"] as? Int == 0, "\(stored)")
            #expect((stored["defaults"] as? [String: Any])?["addressRequestsPerMinute"] as? Int == 100_000, "\(stored)")

            try await browser.element("#measure-now").click()
            try await browser.waitForText("Measured", in: "#notices")
            try await browser.waitForText("private of", in: "#usage-table")
            try await browser.waitForText("1.5 KB", in: "#usage-table")
            #expect(try await browser.elements("#usage-table tr.over-quota").count == 1, "alice's database is shown at its quota")
            try await browser.element("#container-quotas-userStorageBytes").fill("lots")
            try await browser.element("#container-quotas button[type=submit]").click()
            try await browser.waitForText("is not a size", in: "#notices")

            let (refused, refusal) = try await alice.send("private", "records/modify", note)
            #expect(refused == 413 && refusal["serverErrorCode"] as? String == "QUOTA_EXCEEDED", "\(refusal)")
            try await session.screenshot("quotas")
        }
    }
}
