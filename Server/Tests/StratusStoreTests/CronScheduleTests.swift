import Foundation
import StratusStore
import Testing

@Suite struct CronScheduleTests {
    func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    func next(_ expression: String, after: String, zone: String = "UTC") throws -> String? {
        try CronSchedule(expression, timeZone: zone).next(after: date(after)).map { ISO8601DateFormatter().string(from: $0) }
    }

    @Test func nextTimes() throws {
        #expect(try next("* * * * *", after: "2026-11-26T10:00:30Z") == "2026-11-26T10:01:00Z")
        #expect(try next("*/15 * * * *", after: "2026-11-26T10:00:00Z") == "2026-11-26T10:15:00Z")
        #expect(try next("0 3 * * *", after: "2026-11-26T10:00:00Z") == "2026-11-27T03:00:00Z")
        #expect(try next("@monthly", after: "2026-12-15T00:00:00Z") == "2027-01-01T00:00:00Z")
        #expect(try next("30 9 * * mon-fri", after: "2026-11-27T10:00:00Z") == "2026-11-30T09:30:00Z")  // Friday → Monday
        #expect(try next("0 0 29 feb *", after: "2026-03-01T00:00:00Z") == "2028-02-29T00:00:00Z")
        #expect(try next("0 0 1 * 0", after: "2026-11-26T00:00:00Z") == "2026-11-29T00:00:00Z")  // the 1st or a Sunday
        #expect(try next("0 9 * * *", after: "2026-11-26T10:00:00Z", zone: "Europe/Paris") == "2026-11-27T08:00:00Z")
        #expect(try next("0 0 30 2 *", after: "2026-01-01T00:00:00Z") == nil)
        #expect(try next("*/5 * * * * *", after: "2026-11-26T10:00:07Z") == "2026-11-26T10:00:10Z")
        #expect(try next("30 0 12 * * *", after: "2026-11-26T10:00:07Z") == "2026-11-26T12:00:30Z")
    }

    @Test func invalidExpressionsSayWhy() {
        for bad in ["* * * *", "60 * * * *", "* * * * 8", "5-1 * * * *", "*/0 * * * *", "a b c d e"] {
            #expect(throws: CronSchedule.Invalid.self, "\(bad)") { try CronSchedule(bad) }
        }
        #expect(throws: CronSchedule.Invalid.self) { try CronSchedule("* * * * *", timeZone: "Mars/Olympus") }
    }
}
