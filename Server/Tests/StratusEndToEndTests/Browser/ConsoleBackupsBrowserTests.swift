import Foundation
import StratusTestSupport
import Testing

/// The console's Backups page in headless Chromium: where and how often the server backs up, a backup made from the
/// page, and the bucket's backups listed.
@Suite(.serialized) struct ConsoleBackupsBrowserTests {
    @Test("the Backups page shows the schedule, makes a backup on a click, and lists it from the bucket")
    func backupsPage() async throws {
        guard let bucket = try await ScheduledBackupEndToEndTests.bucketArguments("console-backups") else { return }
        let arguments = ["--backup-interval", "3600", "--backup-keep", "3"] + bucket.serve
        try await ConsoleBrowserTests.Session.with("backups", arguments: arguments, backend: .sqlite) { session in
            let browser = session.browser
            try await session.go("#/backups", heading: "Backups")
            try await browser.waitForText("Every hour to s3://stratus-tests/\(bucket.prefix), keeping the newest 3.", in: "#backup-schedule")
            try await browser.waitForText("No backups yet.", in: "#backups-table")
            try await browser.element("#start-backup").click()
            try await browser.waitForText("was made at", in: "#backup-latest", timeout: 120)
            let listed = try await browser.waitForText("backup-", in: "#backups-table", timeout: 30)
            let stored = try await session.admin("GET", "/admin/1/backups")
            let name = ((stored["backups"] as? [[String: Any]])?.first?["name"] as? String) ?? "?"
            #expect(listed.contains(name), "the page lists \(name): \(listed)")
            try await session.screenshot("backups")
        }
    }
}
