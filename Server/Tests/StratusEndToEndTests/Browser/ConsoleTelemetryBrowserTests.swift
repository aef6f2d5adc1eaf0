import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// The console's Telemetry page and a user's page in headless Chromium: charts drawn from every request the
/// server counted, the request log searched by error code, and a user's zones, sessions and requests.
@Suite(.serialized) struct ConsoleTelemetryBrowserTests {
    static let container = ConsoleBrowserTests.container

    @Test("operators see requests, errors by code and latency charted, find a failed request in the log and open its user")
    func telemetryAndUserPages() async throws {
        try await ConsoleBrowserTests.Session.with("telemetry") { session in
            let browser = session.browser
            let apps = try await session.admin("GET", "/admin/1/containers")
            let apiToken = ((apps["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) ?? ""
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: session.server, container: Self.container)
            let (zoneStatus, zone) = try await alice.send("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Diary"}}}]}"#)
            #expect(zoneStatus == 200, "\(zone)")
            let (saveStatus, saved) = try await alice.send(
                "private", "records/modify", #"{"zoneID":{"zoneName":"Diary"},"operations":[{"operationType":"create","record":{"recordType":"Entry","fields":{"text":{"value":"hello"}}}}]}"#
            )
            #expect(saveStatus == 200, "\(saved)")
            let (missingStatus, _) = try await alice.send(
                "private", "records/modify", #"{"zoneID":{"zoneName":"Nowhere"},"operations":[{"operationType":"create","record":{"recordType":"Entry"}}]}"#
            )
            #expect(missingStatus != 200)
            _ = try await alice.send("private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Diary"}}]}"#)

            // The server writes its figures every few seconds, and the page reads the charts and the log one after the
            // other (a write may fall in between): reload until both show every request.
            try await session.go("#/telemetry?range=hour", heading: "Telemetry")
            try await browser.waitUntil("the requests counted and charted", timeout: 90) {
                try await browser.session("POST", "/refresh")
                _ = try await browser.waitForText("Request log")
                let log = try await browser.elements("#log-table tbody tr").count
                let charted = try await browser.element(".charts").text()
                return log >= 5 && charted.contains("ZONE_NOT_FOUND")
            }
            #expect(try await browser.elements("svg.chart").count >= 5, "requests, errors, latency, notifications and users charted")
            try await browser.element("#log-errorCode").fill("*")
            try await browser.element("#log-form button[type=submit]").click()
            try await browser.waitUntil("only failures listed") {
                let rows = try await browser.elements("#log-table tbody tr")
                guard rows.count == 1 else { return false }
                return try await rows[0].text().contains("ZONE_NOT_FOUND")
            }
            try await session.screenshot("telemetry")

            try await browser.element("#log-table tbody tr a").click()
            try await browser.waitForText("alice@example.com", in: "main h1")
            try await browser.waitForText("Diary", in: "#user-zones")
            try await browser.waitForText("Entry 1", in: "#user-zones")
            try await browser.waitForText("changes/zone", in: "#user-sync")
            #expect(try await browser.elements("#user-sessions tbody tr").count == 1)
            try await session.screenshot("user")
        }
    }
}
