import StratusModel

/// Quotas, storage measurements and request counts, written once over any backend's tables (``SQLTables``).
extension UsageStore where Self: SQLTables {
    public func quotas() async throws -> [String: Quotas] {
        let rows = try await rows("""
            SELECT container_id, public_storage_bytes, user_storage_bytes, user_requests_per_minute, key_requests_per_minute,
                address_requests_per_minute FROM quotas
            """)
        var found: [String: Quotas] = [:]
        for row in rows {
            found[try row.text("container_id")] = Quotas(
                publicStorageBytes: try row.optionalInteger("public_storage_bytes"), userStorageBytes: try row.optionalInteger("user_storage_bytes"),
                userRequestsPerMinute: try row.optionalInteger("user_requests_per_minute"),
                keyRequestsPerMinute: try row.optionalInteger("key_requests_per_minute"),
                addressRequestsPerMinute: try row.optionalInteger("address_requests_per_minute")
            )
        }
        return found
    }

    public func setQuotas(_ quotas: Quotas, containerID: String?) async throws {
        let key = containerID ?? Quotas.defaultsKey
        let statement: SQLFragment = quotas.isEmpty
            ? "DELETE FROM quotas WHERE container_id = \(.text(key))"
            : """
                INSERT INTO quotas (container_id, public_storage_bytes, user_storage_bytes, user_requests_per_minute, key_requests_per_minute,
                    address_requests_per_minute)
                VALUES (\(.text(key)), \(SQLValue(quotas.publicStorageBytes)), \(SQLValue(quotas.userStorageBytes)), \
                \(SQLValue(quotas.userRequestsPerMinute)), \(SQLValue(quotas.keyRequestsPerMinute)), \(SQLValue(quotas.addressRequestsPerMinute)))
                ON CONFLICT (container_id) DO UPDATE SET public_storage_bytes = excluded.public_storage_bytes, \
                user_storage_bytes = excluded.user_storage_bytes, user_requests_per_minute = excluded.user_requests_per_minute, \
                key_requests_per_minute = excluded.key_requests_per_minute, address_requests_per_minute = excluded.address_requests_per_minute
                """
        try await transaction([statement], emitting: [.quotasChanged])
    }

    public func measureStorage(now: Int64) async throws -> Int {
        let measured = try await snapshot { reading in
            var usage: [DatabaseRef: StorageUsage] = [:]
            func entry(_ row: SQLRow) throws -> DatabaseRef? {
                guard let environment = Environment(rawValue: try row.text("environment")),
                      let scope = DatabaseScope(rawValue: try row.text("scope")) else { return nil }
                return DatabaseRef(containerID: try row.text("container_id"), environment: environment, scope: scope, ownerRecordName: try row.text("owner"))
            }
            for row in try await reading.rows("""
                SELECT z.container_id, z.environment, z.scope, z.owner, COUNT(*) AS records, CAST(SUM(\(.byteLength("r.fields"))) AS BIGINT) AS bytes
                FROM records r JOIN zones z ON z.id = r.zone_id WHERE \(.live("r"))
                GROUP BY z.container_id, z.environment, z.scope, z.owner
                """) {
                guard let database = try entry(row) else { continue }
                usage[database] = StorageUsage(
                    database: database, records: try row.integer("records"), recordBytes: try row.optionalInteger("bytes") ?? 0, assetBytes: 0,
                    measuredAt: now
                )
            }
            for row in try await reading.rows("""
                SELECT container_id, environment, scope, owner, CAST(SUM(size) AS BIGINT) AS bytes FROM assets WHERE ref_count > 0
                GROUP BY container_id, environment, scope, owner
                """) {
                guard let database = try entry(row) else { continue }
                usage[database, default: StorageUsage(database: database, records: 0, recordBytes: 0, assetBytes: 0, measuredAt: now)]
                    .assetBytes = try row.optionalInteger("bytes") ?? 0
            }
            return Array(usage.values)
        }
        let dialect = sqlDialect
        var statements: [SQLFragment] = ["DELETE FROM storage_usage"]
        for start in stride(from: 0, to: measured.count, by: 500) {
            let rows = measured[start..<min(start + 500, measured.count)].map { usage -> [SQLValue] in
                [
                    .text(usage.database.containerID), .text(usage.database.environment.rawValue), .text(usage.database.scope.rawValue),
                    .text(usage.database.ownerRecordName), .integer(usage.records), .integer(usage.recordBytes), .integer(usage.assetBytes),
                    .integer(now),
                ]
            }
            statements.append(dialect.insertRows(
                into: "storage_usage",
                columns: ["container_id", "environment", "scope", "owner", "records", "record_bytes", "asset_bytes", "measured_at"], rows: rows
            ))
        }
        // One sample per container environment, for storage over time.
        var samples: [String: (database: DatabaseRef, sample: StorageSample)] = [:]
        for usage in measured {
            let key = usage.database.containerID + "|" + usage.database.environment.rawValue
            var entry = samples[key] ?? (usage.database, StorageSample(measuredAt: now, publicBytes: 0, privateBytes: 0, users: 0))
            if usage.database.scope == .public {
                entry.sample.publicBytes += usage.totalBytes
            } else {
                entry.sample.privateBytes += usage.totalBytes
                entry.sample.users += 1
            }
            samples[key] = entry
        }
        if !samples.isEmpty {
            let insert = dialect.insertRows(
                into: "storage_history", columns: ["container_id", "environment", "measured_at", "public_bytes", "private_bytes", "users"],
                rows: samples.values.map { entry in
                    [
                        .text(entry.database.containerID), .text(entry.database.environment.rawValue), .integer(now), .integer(entry.sample.publicBytes),
                        .integer(entry.sample.privateBytes), .integer(entry.sample.users),
                    ]
                }
            )
            statements.append("\(insert) ON CONFLICT (container_id, environment, measured_at) DO NOTHING")
        }
        try await transaction(statements, emitting: [.usageMeasured(measuredAt: now)])
        return measured.count
    }

    public func storageUsage(of database: DatabaseRef) async throws -> StorageUsage? {
        try await usage(where: """
            container_id = \(.text(database.containerID)) AND environment = \(.text(database.environment.rawValue)) \
            AND scope = \(.text(database.scope.rawValue)) AND owner = \(.text(database.ownerRecordName))
            """, limit: 1).first
    }

    public func storageUsage(containerID: String, limit: Int) async throws -> [StorageUsage] {
        let container: SQLFragment = "container_id = \(.text(containerID))"
        let publicOnes = try await usage(where: "\(container) AND scope = \(.text(DatabaseScope.public.rawValue))", limit: 2)
        var users = try await usage(where: "\(container) AND scope = \(.text(DatabaseScope.private.rawValue))", limit: limit)
        // Users whose private database holds nothing (never measured, or empty) come after, with nothing in them.
        if users.count < limit {
            let measured = Set(users.map { "\($0.database.environment.rawValue)|\($0.database.ownerRecordName)" })
            let owners = try await rows("""
                SELECT user_record_name FROM accounts WHERE \(container) AND (email IS NULL OR email <> '') ORDER BY user_record_name \
                LIMIT \(.integer(Int64(limit)))
                """).map { try $0.text("user_record_name") }
            for environment in [Environment.development, .production] {
                for owner in owners where users.count < limit && !measured.contains("\(environment.rawValue)|\(owner)") {
                    users.append(StorageUsage(
                        database: DatabaseRef(containerID: containerID, environment: environment, scope: .private, ownerRecordName: owner),
                        records: 0, recordBytes: 0, assetBytes: 0, measuredAt: 0
                    ))
                }
            }
        }
        return publicOnes + users
    }

    private func usage(where condition: SQLFragment, limit: Int) async throws -> [StorageUsage] {
        try await rows("""
            SELECT container_id, environment, scope, owner, records, record_bytes, asset_bytes, measured_at FROM storage_usage
            WHERE \(condition) ORDER BY record_bytes + asset_bytes DESC, owner LIMIT \(.integer(Int64(limit)))
            """).compactMap { row in
            guard let environment = Environment(rawValue: try row.text("environment")),
                  let scope = DatabaseScope(rawValue: try row.text("scope")) else { return nil }
            return StorageUsage(
                database: DatabaseRef(containerID: try row.text("container_id"), environment: environment, scope: scope, ownerRecordName: try row.text("owner")),
                records: try row.integer("records"), recordBytes: try row.integer("record_bytes"), assetBytes: try row.integer("asset_bytes"),
                measuredAt: try row.integer("measured_at")
            )
        }
    }

    public func addRequestCounts(_ counts: [RequestCount]) async throws -> [RequestCount] {
        guard !counts.isEmpty else { return [] }
        let rows = counts.map { [SQLValue.text($0.key), .integer($0.window), .integer($0.count)] }
        let insert = sqlDialect.insertRows(into: "request_counts", columns: ["key", "window_start", "count"], rows: rows)
        let totals = try await execute(["""
            \(insert) ON CONFLICT (key, window_start) DO UPDATE SET count = request_counts.count + excluded.count
            RETURNING key, window_start, count
            """])[0]
        return try totals.map(Self.requestCount)
    }

    public func requestCounts(keys: [String], windows: [Int64]) async throws -> [RequestCount] {
        guard !keys.isEmpty, !windows.isEmpty else { return [] }
        return try await rows("""
            SELECT key, window_start, count FROM request_counts WHERE key\(anyOf: keys.map { .text($0) }) \
            AND window_start\(anyOf: windows.map { .integer($0) })
            """).map(Self.requestCount)
    }

    public func sweepRequestCounts(before window: Int64) async throws {
        try await execute(["DELETE FROM request_counts WHERE window_start < \(.integer(window))"])
    }

    private static func requestCount(_ row: SQLRow) throws -> RequestCount {
        RequestCount(key: try row.text("key"), window: try row.integer("window_start"), count: try row.integer("count"))
    }
}
