import Foundation
import StratusModel

/// Telemetry and the request log, written once over any backend's tables (``SQLTables``).
extension TelemetryStore where Self: SQLTables {
    public func saveTelemetryMinutes(_ minutes: [TelemetryMinute]) async throws {
        guard !minutes.isEmpty else { return }
        var statements: [SQLFragment] = []
        for start in stride(from: 0, to: minutes.count, by: 200) {
            let rows = try minutes[start..<min(start + 200, minutes.count)].map { minute -> [SQLValue] in
                [
                    .text(minute.containerID), .text(minute.environment.rawValue), .integer(minute.minute), .text(minute.node), .integer(minute.requests),
                    .integer(minute.errors), .text(String(decoding: try JSONEncoder().encode(minute.errorCodes), as: UTF8.self)),
                    .text(minute.latency.encoded), .integer(minute.notifications),
                ]
            }
            let insert = sqlDialect.insertRows(
                into: "telemetry_minutes",
                columns: ["container_id", "environment", "minute", "node", "requests", "errors", "error_codes", "latency", "notifications"], rows: rows
            )
            statements.append("""
                \(insert) ON CONFLICT (container_id, environment, minute, node) DO UPDATE SET requests = excluded.requests, \
                errors = excluded.errors, error_codes = excluded.error_codes, latency = excluded.latency, notifications = excluded.notifications
                """)
        }
        try await execute(statements)
    }

    public func telemetryMinutes(containerID: String, environment: Environment, from: Int64, to: Int64) async throws -> [TelemetryMinute] {
        try await rows("""
            SELECT minute, node, requests, error_codes, latency, notifications FROM telemetry_minutes
            WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) \
            AND minute >= \(.integer(from)) AND minute < \(.integer(to)) ORDER BY minute, node
            """).map { row in
            TelemetryMinute(
                containerID: containerID, environment: environment, minute: try row.integer("minute"), node: try row.text("node"),
                requests: try row.integer("requests"),
                errorCodes: (try? JSONDecoder().decode([String: Int64].self, from: Data(try row.text("error_codes").utf8))) ?? [:],
                latency: LatencyHistogram(encoded: try row.text("latency")), notifications: try row.integer("notifications")
            )
        }
    }

    public func noteActiveUsers(_ users: [String], containerID: String, environment: Environment, day: Int64) async throws {
        guard !users.isEmpty else { return }
        var statements: [SQLFragment] = []
        for start in stride(from: 0, to: users.count, by: 500) {
            let rows = users[start..<min(start + 500, users.count)].map { user -> [SQLValue] in
                [.text(containerID), .text(environment.rawValue), .integer(day), .text(user)]
            }
            let insert = sqlDialect.insertRows(into: "active_users", columns: ["container_id", "environment", "day", "user_record_name"], rows: rows)
            statements.append("\(insert) ON CONFLICT (container_id, environment, day, user_record_name) DO NOTHING")
        }
        try await execute(statements)
    }

    public func activeUsers(containerID: String, environment: Environment, from: Int64, to: Int64) async throws -> [Int64: Int64] {
        var counts: [Int64: Int64] = [:]
        for row in try await rows("""
            SELECT day, COUNT(*) AS users FROM active_users
            WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND day >= \(.integer(from)) AND day < \(.integer(to))
            GROUP BY day
            """) {
            counts[try row.integer("day")] = try row.integer("users")
        }
        return counts
    }

    public func storageHistory(containerID: String, environment: Environment, from: Int64, to: Int64) async throws -> [StorageSample] {
        try await rows("""
            SELECT measured_at, public_bytes, private_bytes, users FROM storage_history
            WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) \
            AND measured_at >= \(.integer(from)) AND measured_at < \(.integer(to)) ORDER BY measured_at
            """).map { row in
            StorageSample(
                measuredAt: try row.integer("measured_at"), publicBytes: try row.integer("public_bytes"), privateBytes: try row.integer("private_bytes"),
                users: try row.integer("users")
            )
        }
    }

    public func appendRequestLog(_ entries: [RequestLogEntry]) async throws {
        guard !entries.isEmpty else { return }
        var statements: [SQLFragment] = []
        for start in stride(from: 0, to: entries.count, by: 200) {
            let rows = entries[start..<min(start + 200, entries.count)].map { entry -> [SQLValue] in
                [
                    .text(entry.containerID), .text(entry.environment.rawValue), .integer(entry.time), .text(entry.node), .text(entry.method),
                    .text(entry.operation), .integer(Int64(entry.status)), SQLValue(entry.errorCode), SQLValue(entry.userRecordName),
                    .text(Self.recordTypesColumn(entry.recordTypes)), .integer(entry.microseconds), .text(entry.address),
                ]
            }
            statements.append(sqlDialect.insertRows(
                into: "request_log",
                columns: [
                    "container_id", "environment", "time", "node", "method", "operation", "status", "error_code", "user_record_name", "record_types",
                    "microseconds", "address",
                ],
                rows: rows
            ))
        }
        try await execute(statements)
    }

    public func requestLog(containerID: String, matching query: RequestLogQuery) async throws -> [RequestLogEntry] {
        var conditions: [SQLFragment] = ["container_id = \(.text(containerID))"]
        if let environment = query.environment { conditions.append("environment = \(.text(environment.rawValue))") }
        if let user = query.userRecordName { conditions.append("user_record_name = \(.text(user))") }
        if let type = query.recordType { conditions.append("record_types LIKE \(.text("%," + Self.escapedForLike(type) + ",%")) ESCAPE '\\'") }
        if let code = query.errorCode {
            conditions.append(code == "*" ? "error_code IS NOT NULL" : "error_code = \(.text(code))")
        }
        if let from = query.from { conditions.append("time >= \(.integer(from))") }
        if let to = query.to { conditions.append("time < \(.integer(to))") }
        if let before = query.beforeID { conditions.append("id < \(.integer(before))") }
        return try await rows("""
            SELECT id, environment, time, node, method, operation, status, error_code, user_record_name, record_types, microseconds, address
            FROM request_log WHERE \(SQLFragment.joined(conditions, separator: " AND ")) ORDER BY id DESC LIMIT \(.integer(Int64(query.limit)))
            """).map { row in
            RequestLogEntry(
                id: try row.integer("id"), containerID: containerID, environment: Environment(rawValue: try row.text("environment")) ?? .development,
                time: try row.integer("time"), node: try row.text("node"), method: try row.text("method"), operation: try row.text("operation"),
                status: Int(try row.integer("status")), errorCode: try row.optionalText("error_code"), userRecordName: try row.optionalText("user_record_name"),
                recordTypes: try row.text("record_types").split(separator: ",").map(String.init), microseconds: try row.integer("microseconds"),
                address: try row.text("address")
            )
        }
    }

    public func sweepTelemetry(figuresBefore: Int64, logBefore: Int64) async throws {
        try await execute([
            "DELETE FROM telemetry_minutes WHERE minute < \(.integer(figuresBefore / 60_000))",
            "DELETE FROM active_users WHERE day < \(.integer(figuresBefore / 86_400_000))",
            "DELETE FROM storage_history WHERE measured_at < \(.integer(figuresBefore))",
            "DELETE FROM request_log WHERE time < \(.integer(logBefore))",
        ])
    }

    /// Record types as stored: `,Note,Message,`, so that one is found with `LIKE '%,Note,%'`.
    private static func recordTypesColumn(_ types: [String]) -> String {
        types.isEmpty ? "" : "," + types.joined(separator: ",") + ","
    }

    private static func escapedForLike(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
    }
}
