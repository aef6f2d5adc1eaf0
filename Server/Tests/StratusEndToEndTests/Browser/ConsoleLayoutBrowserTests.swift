import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Every page of the console at a desktop's and a phone's width, in headless Chromium: each is screenshotted and
/// checked for what breaks a layout (a page wider than the window, chart labels cut off, the sections' navigation
/// spilling over more than two rows on a desktop).
@Suite(.serialized) struct ConsoleLayoutBrowserTests {
    static let container = ConsoleBrowserTests.container

    /// Every section, by its address and its heading.
    static let pages: [(hash: String, heading: String)] = [
        ("#/overview", "Overview"), ("#/schema", "Schema"), ("#/records", "Records"), ("#/subscriptions", "Subscriptions"),
        ("#/transfers", "Imports and exports"), ("#/users", "Users"), ("#/accounts", "Accounts"), ("#/webhooks", "Webhooks"),
        ("#/functions", "Functions"), ("#/telemetry?range=hour", "Telemetry"), ("#/quotas", "Quotas"), ("#/backups", "Backups"),
        ("#/activity", "Activity"), ("#/containers", "Containers"), ("#/people", "People"),
    ]

    /// What the page's layout shows: how much wider than the window it is, the chart labels that leave their chart,
    /// and the navigation's height.
    static let measure = """
        const cut = [];
        for (const chart of document.querySelectorAll("svg.chart")) {
          const box = chart.getBoundingClientRect();
          for (const text of chart.querySelectorAll("text")) {
            const label = text.getBoundingClientRect();
            if (label.left < box.left - 1 || label.right > box.right + 1 || label.top < box.top - 1 || label.bottom > box.bottom + 1) cut.push(text.textContent);
          }
        }
        return { overflow: document.documentElement.scrollWidth - window.innerWidth, cut,
          navHeight: document.querySelector("nav").getBoundingClientRect().height, charts: document.querySelectorAll("svg.chart").length };
        """

    @Test("each page at 1280 and 390 pixels: no page wider than the window, no chart label cut off, the navigation grouped")
    func everyPageAtTwoWidths() async throws {
        try await ConsoleBrowserTests.Session.with("layout") { session in
            let browser = session.browser
            let apps = try await session.admin("GET", "/admin/1/containers")
            let apiToken = ((apps["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) ?? ""
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: session.server, container: Self.container)
            let (saved, answer) = try await alice.send(
                "private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Entry","fields":{"text":{"value":"hello"}}}}]}"#
            )
            #expect(saved == 200, "\(answer)")
            // Two measurements of storage: the Storage chart has a line, with sizes on its axis.
            _ = try await session.admin("POST", "/admin/1/usage/measure")
            _ = try await session.admin("POST", "/admin/1/usage/measure")

            for (width, height, name) in [(1280, 900, "desktop"), (390, 844, "phone")] {
                try await browser.resize(width: width, height: height)
                for page in Self.pages {
                    try await session.go(page.hash, heading: page.heading)
                    if page.hash.hasPrefix("#/telemetry") {
                        try await browser.waitUntil("the Storage chart is drawn", timeout: 60) {
                            try await browser.session("POST", "/refresh")
                            _ = try await browser.waitForText("Telemetry", in: "main h1")
                            return try await browser.element(".charts").text().contains("Storage")
                        }
                    }
                    let section = page.hash.dropFirst(2).split(separator: "?")[0]
                    try await session.screenshot("\(section)-\(name)")
                    let layout = try #require(try await browser.script(Self.measure) as? [String: Any])
                    let overflow = (layout["overflow"] as? NSNumber)?.doubleValue ?? 0
                    #expect(overflow <= 1, "\(page.hash) at \(width) px is \(overflow) px wider than the window")
                    let cut = layout["cut"] as? [String] ?? []
                    #expect(cut.isEmpty, "\(page.hash) at \(width) px cuts these chart labels off: \(cut)")
                    if name == "desktop" {
                        let navHeight = (layout["navHeight"] as? NSNumber)?.doubleValue ?? 0
                        #expect(navHeight < 80, "the navigation takes \(navHeight) px at \(width) px")
                    }
                    if page.hash.hasPrefix("#/telemetry") {
                        #expect(((layout["charts"] as? NSNumber)?.intValue ?? 0) >= 5, "\(layout)")
                    }
                }
            }
            // The overview counts what the server did today.
            try await session.go("#/overview", heading: "Overview")
            _ = try await browser.waitForText("Requests today", in: "#overview-tiles")
            _ = try await browser.waitForText(Self.container, in: "#overview-containers")
        }
    }
}
