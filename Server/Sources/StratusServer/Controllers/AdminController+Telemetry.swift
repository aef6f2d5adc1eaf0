import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Telemetry and the request log in the admin API: every node's per-minute figures of a container environment
/// over a range, the users active each day, storage over time, and logged requests searched by user, record type,
/// error code and time.
extension AdminController {
    func registerTelemetryRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get(":container/:environment/telemetry", .viewer, use: telemetry)
        group.get(":container/logs", .viewer, use: requestLog)
    }

    /// The ranges the console offers, with the width of each point.
    static let telemetryRanges: [String: (minutes: Int64, step: Int64)] = [
        "hour": (60, 1), "day": (1440, 15), "week": (10_080, 60), "month": (43_200, 360),
    ]

    /// `GET /admin/1/{container}/{environment}/telemetry?range=hour|day|week|month` (or `from`, `to` in milliseconds
    /// and `step` in minutes): `points` (each `{start, requests, errors, errorsByCode, p50Ms?, p99Ms?, notifications}`),
    /// `totals`, `activeUsers` per day and `storage` samples.
    @Sendable func telemetry(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let environment = try Self.environment(context)
        _ = try await server.authenticator.container(containerID)
        let query = request.uri.queryParameters
        let now = ServerClock.now()
        let rangeName = query["range"].map(String.init) ?? "day"
        guard let range = Self.telemetryRanges[rangeName] else {
            throw APIError.badRequest("range must be hour, day, week or month, not '\(rangeName)'")
        }
        let step = Int64(try Self.integer(query["step"].map(String.init), named: "step", default: Int(range.step), range: 1...43_200))
        let toMinute = Int64(try Self.integer(query["to"].map(String.init), named: "to", default: Int(now), range: 0...Int.max)) / 60_000 + 1
        let fromDefault = (toMinute - range.minutes) * 60_000
        let fromMinute = Int64(try Self.integer(query["from"].map(String.init), named: "from", default: Int(fromDefault), range: 0...Int.max)) / 60_000
        guard fromMinute < toMinute, (toMinute - fromMinute) / step <= 2000 else {
            throw APIError.badRequest("from must come before to, with at most 2000 points of step minutes between them")
        }
        // Points start on multiples of the step, so that the same minute always falls in the same point.
        let firstPoint = fromMinute / step * step
        var points: [Int64: (figures: TelemetryMinute, latency: LatencyHistogram)] = [:]
        var totals = TelemetryMinute(containerID: containerID, environment: environment, minute: firstPoint, node: "")
        for minute in try await server.store.telemetryMinutes(containerID: containerID, environment: environment, from: fromMinute, to: toMinute) {
            let start = minute.minute / step * step
            var point = points[start] ?? (TelemetryMinute(containerID: containerID, environment: environment, minute: start, node: ""), LatencyHistogram())
            Self.add(minute, to: &point.figures)
            point.latency.merge(minute.latency)
            points[start] = point
            Self.add(minute, to: &totals)
            totals.latency.merge(minute.latency)
        }
        let days = try await server.store.activeUsers(
            containerID: containerID, environment: environment, from: fromMinute / 1440, to: (toMinute - 1) / 1440 + 1
        )
        var samples = try await server.store.storageHistory(
            containerID: containerID, environment: environment, from: fromMinute * 60_000, to: toMinute * 60_000
        )
        if samples.count > 200 {
            let stride = Double(samples.count - 1) / 199
            samples = (0..<200).map { samples[Int((Double($0) * stride).rounded())] }
        }
        return JSONResponse.make(JSONWriter.object { writer in
            writer.array("activeUsers", days.keys.sorted()) { writer, day in
                writer.beginObject()
                writer.key("day")
                writer.integer(day * 86_400_000)
                writer.key("users")
                writer.integer(days[day] ?? 0)
                writer.endObject()
            }
            writer.key("from")
            writer.integer(firstPoint * 60_000)
            writer.array("points", Array(stride(from: firstPoint, to: toMinute, by: Int(step)))) { writer, start in
                let point = points[start]
                Self.write(point?.figures ?? TelemetryMinute(containerID: containerID, environment: environment, minute: start, node: ""),
                           latency: point?.latency ?? LatencyHistogram(), start: start * 60_000, to: &writer)
            }
            writer.key("stepMinutes")
            writer.integer(step)
            writer.array("storage", samples) { writer, sample in
                writer.beginObject()
                writer.key("privateBytes")
                writer.integer(sample.privateBytes)
                writer.key("publicBytes")
                writer.integer(sample.publicBytes)
                writer.key("time")
                writer.integer(sample.measuredAt)
                writer.key("users")
                writer.integer(sample.users)
                writer.endObject()
            }
            writer.key("to")
            writer.integer(toMinute * 60_000)
            writer.key("totals")
            Self.write(totals, latency: totals.latency, start: nil, to: &writer)
        })
    }

    private static func add(_ minute: TelemetryMinute, to sum: inout TelemetryMinute) {
        sum.requests += minute.requests
        sum.notifications += minute.notifications
        for (code, count) in minute.errorCodes { sum.errorCodes[code, default: 0] += count }
    }

    private static func write(_ figures: TelemetryMinute, latency: LatencyHistogram, start: Int64?, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("errors")
        writer.integer(figures.errors)
        writer.key("errorsByCode")
        writeCounts(figures.errorCodes, to: &writer)
        writer.key("notifications")
        writer.integer(figures.notifications)
        if let p50 = latency.quantile(0.5), let p99 = latency.quantile(0.99) {
            writer.key("p50Ms")
            writer.double(Double(p50) / 1000)
            writer.key("p99Ms")
            writer.double(Double(p99) / 1000)
        }
        writer.key("requests")
        writer.integer(figures.requests)
        if let start {
            writer.key("start")
            writer.integer(start)
        }
        writer.endObject()
    }

    /// `GET /admin/1/{container}/logs?environment=&user=&recordType=&errorCode=&from=&to=&before=&limit=`: logged
    /// requests, newest first (`errorCode=*` for every failure; `before` an entry's `id`, for the next page), and
    /// `moreComing`.
    @Sendable func requestLog(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        _ = try await server.authenticator.container(containerID)
        let parameters = request.uri.queryParameters
        func text(_ name: String) -> String? {
            parameters[Substring(name)].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        }
        let limit = try Self.integer(text("limit"), named: "limit", default: 100, range: 1...1000)
        var query = RequestLogQuery(
            environment: try text("environment").map(Authenticator.environment(named:)), userRecordName: text("user"), recordType: text("recordType"),
            errorCode: text("errorCode"), limit: limit + 1
        )
        if let from = text("from") { query.from = Int64(try Self.integer(from, named: "from", default: 0, range: 0...Int.max)) }
        if let to = text("to") { query.to = Int64(try Self.integer(to, named: "to", default: 0, range: 0...Int.max)) }
        if let before = text("before") { query.beforeID = Int64(try Self.integer(before, named: "before", default: 0, range: 0...Int.max)) }
        let found = try await server.store.requestLog(containerID: containerID, matching: query)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.array("entries", Array(found.prefix(limit))) { writer, entry in Self.write(entry, to: &writer) }
            writer.key("moreComing")
            writer.bool(found.count > limit)
        })
    }

    /// One logged request as the log and a user's overview show it.
    static func write(_ entry: RequestLogEntry, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("address")
        writer.string(entry.address)
        writer.key("environment")
        writer.string(entry.environment.rawValue)
        if let code = entry.errorCode {
            writer.key("errorCode")
            writer.string(code)
        }
        writer.key("id")
        writer.integer(entry.id)
        writer.key("method")
        writer.string(entry.method)
        writer.key("ms")
        writer.double(Double(entry.microseconds) / 1000)
        writer.key("node")
        writer.string(entry.node)
        writer.key("operation")
        writer.string(entry.operation)
        writer.array("recordTypes", entry.recordTypes) { writer, type in writer.string(type) }
        writer.key("status")
        writer.integer(Int64(entry.status))
        writer.key("time")
        writer.integer(entry.time)
        if let user = entry.userRecordName {
            writer.key("user")
            writer.string(user)
        }
        writer.endObject()
    }

    /// Counts by name as one JSON object, names in order.
    static func writeCounts(_ counts: [String: Int64], to writer: inout JSONWriter) {
        writer.beginObject()
        for name in counts.keys.sorted() {
            writer.key(name)
            writer.integer(counts[name] ?? 0)
        }
        writer.endObject()
    }
}
