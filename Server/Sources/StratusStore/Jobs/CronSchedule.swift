import Foundation

/// A cron expression: five fields (minute, hour, day of month, month, day of week), or six with seconds first, of `*`, numbers, ranges `a-b`,
/// lists `a,b` and steps `*/n` or `a-b/n`; month and day names (`jan`, `mon`); or `@hourly`, `@daily`, `@weekly`,
/// `@monthly`, `@yearly`. As in cron, when both day fields are restricted a day matching either runs.
public struct CronSchedule: Sendable, Hashable {
    public let expression: String
    let seconds: Set<Int>
    let minutes: Set<Int>
    let hours: Set<Int>
    let days: Set<Int>
    let months: Set<Int>
    let weekdays: Set<Int>
    let daysRestricted: Bool
    let weekdaysRestricted: Bool
    let timeZone: TimeZone

    public struct Invalid: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// - Throws: ``Invalid`` saying which field is wrong.
    public init(_ expression: String, timeZone identifier: String = "UTC") throws {
        guard let zone = TimeZone(identifier: identifier) else { throw Invalid(description: "unknown time zone \(identifier)") }
        self.timeZone = zone
        self.expression = expression
        let macros = [
            "@hourly": "0 * * * *", "@daily": "0 0 * * *", "@midnight": "0 0 * * *", "@weekly": "0 0 * * 0", "@monthly": "0 0 1 * *",
            "@yearly": "0 0 1 1 *", "@annually": "0 0 1 1 *",
        ]
        let text = macros[expression.trimmingCharacters(in: .whitespaces).lowercased()] ?? expression
        var fields = text.split(whereSeparator: \.isWhitespace).map { String($0).lowercased() }
        guard fields.count == 5 || fields.count == 6 else {
            throw Invalid(
                description: "a schedule has five fields (minute hour day month weekday), six with seconds first, or is a macro such as @daily; got \"\(expression)\""
            )
        }
        seconds = fields.count == 6 ? try Self.field(fields.removeFirst(), "second", 0...59) : [0]
        minutes = try Self.field(fields[0], "minute", 0...59)
        hours = try Self.field(fields[1], "hour", 0...23)
        days = try Self.field(fields[2], "day of month", 1...31)
        months = try Self.field(fields[3], "month", 1...12, names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], firstName: 1)
        // 7 means Sunday too.
        weekdays = Set(try Self.field(fields[4], "weekday", 0...7, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"], firstName: 0).map { $0 % 7 })
        daysRestricted = fields[2] != "*"
        weekdaysRestricted = fields[4] != "*"
    }

    private static func field(_ text: String, _ name: String, _ range: ClosedRange<Int>, names: [String] = [], firstName: Int = 0) throws -> Set<Int> {
        func value(_ part: Substring) throws -> Int {
            if let index = names.firstIndex(of: String(part)) { return index + firstName }
            guard let number = Int(part), range.contains(number) else {
                throw Invalid(description: "the \(name) field's \"\(part)\" is not in \(range.lowerBound)-\(range.upperBound)")
            }
            return number
        }
        var result = Set<Int>()
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pieces = item.split(separator: "/", omittingEmptySubsequences: false)
            guard pieces.count <= 2, !pieces[0].isEmpty else { throw Invalid(description: "the \(name) field's \"\(item)\" is not valid") }
            var step = 1
            if pieces.count == 2 {
                guard let number = Int(pieces[1]), number > 0 else { throw Invalid(description: "the \(name) field's step \"\(pieces[1])\" is not valid") }
                step = number
            }
            let bounds: ClosedRange<Int>
            if pieces[0] == "*" {
                bounds = range
            } else if let dash = pieces[0].firstIndex(of: "-") {
                let low = try value(pieces[0][..<dash]), high = try value(pieces[0][pieces[0].index(after: dash)...])
                guard low <= high else { throw Invalid(description: "the \(name) field's range \"\(pieces[0])\" runs backwards") }
                bounds = low...high
            } else {
                let single = try value(pieces[0])
                bounds = single...(pieces.count == 2 ? range.upperBound : single)
            }
            result.formUnion(stride(from: bounds.lowerBound, through: bounds.upperBound, by: step))
        }
        return result
    }

    /// The first time the schedule matches strictly after `date`, within eight years; `nil` when it never does
    /// (such as `0 0 30 2 *`).
    public func next(after date: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        // Start at the next whole minute.
        var candidate = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down) + 1)
        let limit = date.addingTimeInterval(8 * 366 * 86_400)
        while candidate < limit {
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: candidate)
            guard let month = parts.month, let day = parts.day, let hour = parts.hour, let minute = parts.minute, let second = parts.second,
                let weekday = parts.weekday
            else {
                return nil
            }
            if !months.contains(month) {
                guard let start = calendar.date(from: DateComponents(year: parts.year, month: month, day: 1)),
                    let following = calendar.date(byAdding: .month, value: 1, to: start) else { return nil }
                candidate = following
                continue
            }
            if !dayMatches(day: day, weekday: weekday - 1) {
                guard let following = calendar.date(byAdding: .day, value: 1, to: calendar.startOfDay(for: candidate)) else { return nil }
                candidate = following
                continue
            }
            if !hours.contains(hour) {
                guard let start = calendar.date(bySettingHour: hour, minute: 0, second: 0, of: candidate),
                    let following = calendar.date(byAdding: .hour, value: 1, to: start) else { return nil }
                candidate = following
                continue
            }
            if !minutes.contains(minute) {
                candidate = candidate.addingTimeInterval(Double(60 - second))
                continue
            }
            if !seconds.contains(second) {
                candidate = candidate.addingTimeInterval(1)
                continue
            }
            return candidate
        }
        return nil
    }

    private func dayMatches(day: Int, weekday: Int) -> Bool {
        switch (daysRestricted, weekdaysRestricted) {
        case (true, true): days.contains(day) || weekdays.contains(weekday)
        case (true, false): days.contains(day)
        case (false, true): weekdays.contains(weekday)
        case (false, false): true
        }
    }
}
