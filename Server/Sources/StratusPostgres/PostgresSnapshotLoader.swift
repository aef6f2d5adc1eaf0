import Foundation
import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// Loads what ``RecordEngine`` asks for, each part in one statement: rows by name (`= ANY` of every name),
/// ancestor chains in one recursive walk up, the cascade closure in one recursive walk over references.
///
/// It also locks what it loads, so that the plan holds when it is applied (see
/// ``PostgresStore/writeRetryingConflicts(_:)``): the batch's own records `FOR UPDATE`, other rows `FOR SHARE`;
/// rows found by a recursive walk are locked afterwards and must not have changed in between.
final class PostgresSnapshotLoader {
    let connection: PostgresConnection
    let logger: Logger
    /// The same connection, for the reads written once in the store (``ShareTables``).
    var reading: PostgresReading { PostgresReading(connection: connection, logger: logger, dialect: PostgresDialect()) }
    let zone: ZoneRow
    let caller: Caller
    /// The records the batch writes, locked `FOR UPDATE` when loaded.
    let exclusive: Set<RecordKey>
    /// The live zones of the database by name, read once when a request names another zone.
    private var zoneIDs: [String: Int64]?
    /// The row IDs of every record loaded or inserted, for the plan's writes.
    private(set) var rowIDs: [RecordKey: Int64] = [:]

    init(connection: PostgresConnection, logger: Logger, zone: ZoneRow, caller: Caller, exclusive: Set<RecordKey> = []) {
        self.exclusive = exclusive
        self.connection = connection
        self.logger = logger
        self.zone = zone
        self.caller = caller
    }

    private var database: DatabaseRef { zone.zone.database }

    /// Notes the row ID of a record the plan inserted.
    func remember(_ key: RecordKey, id: Int64) {
        rowIDs[key] = id
    }

    /// Loads a request into a snapshot holding only what was loaded (see ``RecordSnapshot/merge(_:)``).
    func load(_ request: SnapshotRequest, schema: Schema) async throws -> RecordSnapshot {
        var loaded = RecordSnapshot(schema: schema)
        if !request.zones.isEmpty {
            let ids = try await liveZoneIDs()
            for name in request.zones { loaded.zones[name] = ids[name] != nil }
        }
        try await loadRecords(request.records, into: &loaded)
        try await loadAncestors(of: request.ancestors, into: &loaded)
        try await loadReferences(into: request.references, into: &loaded)
        if request.zoneSharing || request.shareRoots {
            loaded.zoneSharing = try await reading.read(ShareTables.sharing(ofZone: zone.id))
        }
        if request.shareRoots {
            let roots = try await connection.all(
                "SELECT root_name FROM shares WHERE zone_id = \(zone.id) AND root_name IS NOT NULL", as: String.self, logger: logger
            )
            loaded.shareRoots = Set(roots)
            try await loadAncestors(of: Set(roots), into: &loaded)
        }
        try await loadShares(request.shares, into: &loaded)
        if request.callerAccess, let user = caller.userRecordName {
            loaded.callerAccess = try await reading.read(ShareTables.access(ofZone: zone.id, user: user))
        }
        try await loadReceipts(request.receipts, into: &loaded)
        try await loadUsers(request.users, into: &loaded)
        try await loadUniqueHolders(request.uniqueProbes, into: &loaded)
        return loaded
    }

    /// The engine's first snapshot from what ``RecordWriteOpening`` read: the batch's own records (those it did
    /// not find are absent) and the zone's sharing.
    func opened(_ opening: RecordWriteOpening, schema: Schema) async throws -> RecordSnapshot {
        var snapshot = RecordSnapshot(schema: schema)
        snapshot.absentRecords = exclusive
        for row in opening.rows {
            guard let record = try await stored(row) else { continue }
            snapshot.records[record.key] = record
            snapshot.absentRecords.remove(record.key)
        }
        snapshot.zoneSharing = opening.zoneSharing
        return snapshot
    }

    // MARK: - Records

    private func liveZoneIDs() async throws -> [String: Int64] {
        if let zoneIDs { return zoneIDs }
        var ids: [String: Int64] = [:]
        for row in try await PostgresStore.liveZones(in: database, connection: connection, logger: logger) { ids[row.zone.zoneName] = row.id }
        ids[zone.zone.zoneName] = zone.id
        zoneIDs = ids
        return ids
    }

    func zoneID(_ name: String) async throws -> Int64? {
        name == zone.zone.zoneName ? zone.id : try await liveZoneIDs()[name]
    }

    private func zoneName(ofID id: Int64) async throws -> String? {
        if id == zone.id { return zone.zone.zoneName }
        return try await liveZoneIDs().first { $0.value == id }?.key
    }

    private func stored(_ row: StoredRecordRow) async throws -> StoredRecord? {
        guard let zoneName = try await zoneName(ofID: row.zoneID) else { return nil }
        let record = row.stored(inZone: zoneName)
        rowIDs[record.key] = row.id
        return record
    }

    private func loadRecords(_ keys: Set<RecordKey>, into loaded: inout RecordSnapshot) async throws {
        for (zoneName, keys) in Dictionary(grouping: keys, by: \.zoneName) {
            loaded.absentRecords.formUnion(keys)
            guard let zoneID = try await zoneID(zoneName) else { continue }
            let own = keys.filter { exclusive.contains($0) }.map(\.recordName)
            let others = keys.filter { !exclusive.contains($0) }.map(\.recordName)
            for (names, exclusively) in [(own, true), (others, false)] where !names.isEmpty {
                // One name (a single-record save) has a statement of its own, which PostgreSQL plans once.
                let rows = switch (exclusively, names.count == 1) {
                case (true, true): try await connection.rows(LoadRecordForUpdate.self, try binds(zoneID, names[0]), logger: logger)
                case (true, false): try await connection.rows(LoadRecordsForUpdate.self, try binds(zoneID, names), logger: logger)
                case (false, true): try await connection.rows(LoadRecordForShare.self, try binds(zoneID, names[0]), logger: logger)
                case (false, false): try await connection.rows(LoadRecordsForShare.self, try binds(zoneID, names), logger: logger)
                }
                for row in rows {
                    guard let record = try await stored(StoredRecordRow(row: row)) else { continue }
                    loaded.records[record.key] = record
                    loaded.absentRecords.remove(record.key)
                }
            }
        }
    }

    /// Locks rows a recursive walk found (`FOR SHARE`); a row that changed since the walk read it makes the
    /// write run again.
    private func lockWalked(_ rows: [StoredRecordRow]) async throws {
        guard !rows.isEmpty else { return }
        let seen = Dictionary(rows.map { ($0.id, ($0.changeTag, $0.deleted)) }, uniquingKeysWith: { first, _ in first })
        let locked = try await connection.rows(
            "SELECT id, change_tag, deleted FROM records WHERE id = ANY(\(Array(seen.keys))) ORDER BY id FOR SHARE",
            as: (Int64, String, Bool).self, logger: logger
        )
        guard locked.count == seen.count, locked.allSatisfy({ id, tag, deleted in seen[id].map { $0 == (tag, deleted) } ?? false }) else {
            throw StorageError.concurrentChange("a record this batch depends on")
        }
    }

    /// Every record from the named ones up through their parents, in one recursive query.
    private func loadAncestors(of names: Set<String>, into loaded: inout RecordSnapshot) async throws {
        guard !names.isEmpty else { return }
        let query = PostgresQuery(
            unsafeSQL: """
                WITH RECURSIVE up(name) AS (
                    SELECT unnest($1::text[])
                    UNION
                    SELECT r.parent FROM records r JOIN up ON r.zone_id = $2 AND r.name = up.name WHERE r.parent IS NOT NULL
                )
                SELECT \(StoredRecordRow.columns), up.name FROM up LEFT JOIN records r ON r.zone_id = $2 AND r.name = up.name
                """,
            binds: try binds(Array(names), zone.id)
        )
        var walked: [StoredRecordRow] = []
        try await connection.traced(query.sql) {
            for try await row in try await connection.query(query, logger: logger) {
                let cells = Array(row)
                let name = try cells[16].decode(String.self)
                let key = RecordKey(zoneName: zone.zone.zoneName, recordName: name)
                if try cells[0].decode(Int64?.self) == nil {
                    loaded.absentRecords.insert(key)
                } else {
                    let record = try StoredRecordRow(row: row)
                    walked.append(record)
                    if let stored = try await stored(record) { loaded.records[key] = stored }
                }
            }
        }
        try await lockWalked(walked)
        for name in names { loaded.ancestorsLoaded.insert(RecordKey(zoneName: zone.zone.zoneName, recordName: name)) }
    }

    /// The cascade closure of the named records: every live record reaching them through `DELETE_SELF`
    /// references, transitively, and every `DELETE_SELF` and `VALIDATE` reference into the closure.
    private func loadReferences(into targets: Set<RecordKey>, into loaded: inout RecordSnapshot) async throws {
        guard !targets.isEmpty else { return }
        var seedZones: [Int64] = []
        var seedNames: [String] = []
        for target in targets {
            guard let zoneID = try await zoneID(target.zoneName) else {
                loaded.referencesLoaded.insert(target)
                continue
            }
            seedZones.append(zoneID)
            seedNames.append(target.recordName)
        }
        guard !seedZones.isEmpty else { return }
        let query = PostgresQuery(
            unsafeSQL: """
                WITH RECURSIVE closure(zone_id, name) AS (
                    SELECT * FROM unnest($1::bigint[], $2::text[])
                    UNION
                    SELECT s.zone_id, s.name FROM closure c
                    JOIN record_refs f ON f.target_zone_id = c.zone_id AND f.target_name = c.name AND f.action = 1
                    JOIN records s ON s.id = f.source_id AND NOT s.deleted
                )
                SELECT \(StoredRecordRow.columns), c.zone_id, c.name, f.action FROM closure c
                LEFT JOIN record_refs f ON f.target_zone_id = c.zone_id AND f.target_name = c.name
                LEFT JOIN records r ON r.id = f.source_id
                """,
            binds: try binds(seedZones, seedNames)
        )
        var walked: [StoredRecordRow] = []
        try await connection.traced(query.sql) {
            for try await row in try await connection.query(query, logger: logger) {
                let cells = Array(row)
                guard let targetZone = try await zoneName(ofID: try cells[16].decode(Int64.self)) else { continue }
                let target = RecordKey(zoneName: targetZone, recordName: try cells[17].decode(String.self))
                loaded.referencesLoaded.insert(target)
                guard let action = try cells[18].decode(Int16?.self).flatMap({ ReferenceEdge.Action(rawValue: Int($0)) }),
                    try cells[0].decode(Int64?.self) != nil
                else { continue }
                let sourceRow = try StoredRecordRow(row: row)
                walked.append(sourceRow)
                guard let source = try await stored(sourceRow) else { continue }
                loaded.records[source.key] = source
                loaded.references[target, default: []].append(ReferenceEdge(source: source.key, target: target, action: action))
            }
        }
        try await lockWalked(walked)
    }

    // MARK: - Shares

    private func loadShares(_ names: Set<String>, into loaded: inout RecordSnapshot) async throws {
        guard !names.isEmpty else { return }
        for name in names { loaded.shares[name] = .some(nil) }
        let shares = try await reading.read(ShareTables.shares(named: Array(names), zoneID: zone.id))
        guard !shares.isEmpty else { return }
        let participants = try await reading.read(ShareTables.participants(ofShareRecords: shares.map(\.recordID)))
        for share in shares {
            var state = share.state
            state.participants = participants[share.recordID] ?? []
            loaded.shares[share.name] = state
        }
    }

    // MARK: - Receipts, users, unique values

    private func loadReceipts(_ receipts: Set<String>, into loaded: inout RecordSnapshot) async throws {
        guard !receipts.isEmpty else { return }
        for receipt in receipts { loaded.receipts[receipt] = .some(nil) }
        let rows = try await connection.rows(
            """
            SELECT a.id, a.container_id, a.environment, a.scope, a.owner, a.size, a.checksum, a.content_type,
                r.receipt, r.field, r.expires_at, z.name, u.name, r.used_field
            FROM asset_receipts r JOIN assets a ON a.id = r.asset_id
            LEFT JOIN records u ON u.id = r.used_record_id LEFT JOIN zones z ON z.id = u.zone_id
            WHERE r.receipt = ANY(\(Array(receipts))) AND a.state = \(Int16(AssetState.stored.rawValue))
            ORDER BY r.receipt FOR UPDATE OF r
            """,
            as: (String, String, String, String, String, Int64, String, String, String, String?, Int64, String?, String?, String?).self,
            logger: logger
        )
        for (id, container, environment, scope, owner, size, checksum, contentType, receipt, field, expiresAt, usedZone, usedName, usedField) in rows {
            let database = PostgresStore.database(container, environment, scope, owner)
            loaded.receipts[receipt] = ReceiptState(
                asset: StoredAsset(id: id, database: database, size: size, fileChecksum: checksum, contentType: contentType),
                issuedFor: field, expiresAt: expiresAt,
                usedBy: usedZone.flatMap { zone in usedName.map { RecordKey(zoneName: zone, recordName: $0) } }, usedField: usedField
            )
        }
    }

    private func loadUsers(_ users: Set<String>, into loaded: inout RecordSnapshot) async throws {
        guard !users.isEmpty else { return }
        for user in users { loaded.users[user] = false }
        let found = try await connection.all(
            "SELECT user_record_name FROM accounts WHERE container_id = \(database.containerID) AND user_record_name = ANY(\(Array(users)))",
            as: String.self, logger: logger
        )
        for user in found { loaded.users[user] = true }
    }

    /// The holders of unique values, one statement per field (and condition) with every value looked for.
    private func loadUniqueHolders(_ probes: Set<UniqueProbe>, into loaded: inout RecordSnapshot) async throws {
        let groups = Dictionary(grouping: probes) { probe in
            UniqueGroup(recordType: probe.recordType, field: probe.field, condition: probe.condition)
        }
        // Two writers saving one unique value take turns: each holds a lock on the value until it commits, so
        // the second looks only once the first's record is there.
        let lockKeys = probes.map { probe in
            "\(zone.id)|\(probe.recordType)|\(probe.field)|\(IndexKey(probe.key).hex)"
        }.sorted()
        if !lockKeys.isEmpty {
            try await connection.run("SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT k FROM unnest(\(lockKeys)::text[]) AS k ORDER BY k) AS sorted", logger: logger)
        }
        for (group, probes) in groups {
            for probe in probes { loaded.uniqueHolders[probe] = [] }
            let byKey = Dictionary(probes.map { (IndexKey($0.key).bytes, $0) }, uniquingKeysWith: { first, _ in first })
            var bindings = PostgresBindings()
            var sql = "SELECT a.value, r.name FROM field_index a JOIN records r ON r.id = a.record_id AND NOT r.deleted"
            if let condition = group.condition {
                bindings.append(condition.field)
                bindings.append(ByteBuffer(bytes: IndexKey(condition.key).bytes))
                sql += """
                     JOIN field_index b ON b.zone_id = a.zone_id AND b.type = a.type AND b.field = $1 AND b.kind = 0 AND b.value = $2
                        AND b.record_id = a.record_id
                    """
            }
            let first = bindings.count + 1
            bindings.append(zone.id)
            bindings.append(group.recordType)
            bindings.append(group.field)
            bindings.append(byKey.keys.map { ByteBuffer(bytes: $0) })
            sql += " WHERE a.zone_id = $\(first) AND a.type = $\(first + 1) AND a.field = $\(first + 2) AND a.kind = 0 AND a.value = ANY($\(first + 3))"
            for (value, name) in try await connection.rows(PostgresQuery(unsafeSQL: sql, binds: bindings), as: (ByteBuffer, String).self, logger: logger) {
                guard let probe = byKey[Array(buffer: value)] else { continue }
                loaded.uniqueHolders[probe, default: []].insert(name)
            }
        }
    }

    private struct UniqueGroup: Hashable {
        var recordType: String
        var field: String
        var condition: ConstraintChecker.UniqueCheck.Condition?
    }
}

/// Bindings of a statement's parameters, in order.
func binds(_ values: any PostgresThrowingDynamicTypeEncodable...) throws -> PostgresBindings {
    var bindings = PostgresBindings()
    for value in values { try bindings.append(value) }
    return bindings
}

/// Records a batch writes, locked until its transaction ends.
private enum LoadRecordsForUpdate: PreparedText {
    static let name = "load_records_for_update"
    static let sql = "SELECT \(StoredRecordRow.columns) FROM records r WHERE r.zone_id = $1 AND r.name = ANY($2) ORDER BY r.id FOR UPDATE"
}

/// Records a batch reads (parents, reference targets), kept from changing until its transaction ends.
private enum LoadRecordsForShare: PreparedText {
    static let name = "load_records_for_share"
    static let sql = "SELECT \(StoredRecordRow.columns) FROM records r WHERE r.zone_id = $1 AND r.name = ANY($2) ORDER BY r.id FOR SHARE"
}

/// ``LoadRecordsForUpdate`` for one record: a statement PostgreSQL plans once, where it plans a list on every call.
private enum LoadRecordForUpdate: PreparedText {
    static let name = "load_record_for_update"
    static let sql = LoadRecordsForUpdate.sql.replacingOccurrences(of: "r.name = ANY($2)", with: "r.name = $2")
}

/// ``LoadRecordsForShare`` for one record.
private enum LoadRecordForShare: PreparedText {
    static let name = "load_record_for_share"
    static let sql = LoadRecordsForShare.sql.replacingOccurrences(of: "r.name = ANY($2)", with: "r.name = $2")
}
