import Foundation
import GRDB
import StratusModel
import StratusStore

/// Loads what ``RecordEngine`` asks for, each part in one statement (or one per 500 names): rows by name,
/// ancestor chains in one recursive walk up, the cascade closure in one recursive walk over references.
struct SnapshotLoader {
    let db: Database
    let zone: ZoneRow
    let caller: Caller
    /// The live zones of the database by name, read once when a request names another zone.
    private var zoneIDs: [String: Int64]?
    /// The row IDs of every record loaded, for the plan's writes.
    private(set) var rowIDs: [RecordKey: Int64] = [:]

    init(db: Database, zone: ZoneRow, caller: Caller) {
        self.db = db
        self.zone = zone
        self.caller = caller
    }

    private var database: DatabaseRef { zone.zone.database }

    /// Notes the row ID of a record the plan inserted.
    mutating func remember(_ key: RecordKey, id: Int64) {
        rowIDs[key] = id
    }

    /// Loads a request into a snapshot holding only what was loaded (see ``RecordSnapshot/merge(_:)``).
    mutating func load(_ request: SnapshotRequest, schema: Schema) throws -> RecordSnapshot {
        var loaded = RecordSnapshot(schema: schema)
        if !request.zones.isEmpty {
            let ids = try liveZoneIDs()
            for name in request.zones { loaded.zones[name] = ids[name] != nil }
        }
        try loadRecords(request.records, into: &loaded)
        try loadAncestors(of: request.ancestors, into: &loaded)
        try loadReferences(into: request.references, into: &loaded)
        if request.zoneSharing || request.shareRoots {
            loaded.zoneSharing = try db.read(ShareTables.sharing(ofZone: zone.id))
        }
        if request.shareRoots {
            let roots = try String.fetchAll(
                db.cachedStatement(sql: "SELECT root_name FROM shares WHERE zone_id = ? AND root_name IS NOT NULL"), arguments: [zone.id]
            )
            loaded.shareRoots = Set(roots)
            try loadAncestors(of: Set(roots), into: &loaded)
        }
        try loadShares(request.shares, into: &loaded)
        if request.callerAccess, let user = caller.userRecordName {
            loaded.callerAccess = try db.read(ShareTables.access(ofZone: zone.id, user: user))
        }
        try loadReceipts(request.receipts, into: &loaded)
        try loadUsers(request.users, into: &loaded)
        try loadUniqueHolders(request.uniqueProbes, into: &loaded)
        return loaded
    }

    // MARK: - Records

    private mutating func liveZoneIDs() throws -> [String: Int64] {
        if let zoneIDs { return zoneIDs }
        var ids: [String: Int64] = [:]
        for row in try SQLiteStore.liveZones(in: database, db: db) { ids[row.zone.zoneName] = row.id }
        ids[zone.zone.zoneName] = zone.id
        zoneIDs = ids
        return ids
    }

    mutating func zoneID(_ name: String) throws -> Int64? {
        name == zone.zone.zoneName ? zone.id : try liveZoneIDs()[name]
    }

    private mutating func zoneName(ofID id: Int64) throws -> String? {
        if id == zone.id { return zone.zone.zoneName }
        return try liveZoneIDs().first { $0.value == id }?.key
    }

    private mutating func stored(_ row: StoredRecordRow) throws -> StoredRecord? {
        guard let zoneName = try zoneName(ofID: row.zoneID) else { return nil }
        let record = row.stored(inZone: zoneName)
        rowIDs[record.key] = row.id
        return record
    }

    private mutating func loadRecords(_ keys: Set<RecordKey>, into loaded: inout RecordSnapshot) throws {
        for (zoneName, keys) in Dictionary(grouping: keys, by: \.zoneName) {
            loaded.absentRecords.formUnion(keys)
            guard let zoneID = try zoneID(zoneName) else { continue }
            for chunk in SQLList.chunks(keys.map(\.recordName)) {
                let rows = try Row.fetchAll(
                    db.cachedStatement(sql: "SELECT \(StoredRecordRow.columns) FROM records r WHERE r.zone_id = ? AND r.name IN (\(SQLList.placeholders(chunk.count)))"),
                    arguments: StatementArguments([zoneID.databaseValue] + chunk.map(\.databaseValue))
                )
                for row in rows {
                    guard let record = try stored(StoredRecordRow(row: row)) else { continue }
                    loaded.records[record.key] = record
                    loaded.absentRecords.remove(record.key)
                }
            }
        }
    }

    /// Every record from the named ones up through their parents, in one recursive query per chunk.
    private mutating func loadAncestors(of names: Set<String>, into loaded: inout RecordSnapshot) throws {
        for chunk in SQLList.chunks(Array(names)) {
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    WITH RECURSIVE up(name) AS (
                        SELECT column1 FROM (VALUES \(Array(repeating: "(?)", count: chunk.count).joined(separator: ", ")))
                        UNION
                        SELECT r.parent FROM records r JOIN up ON r.zone_id = ? AND r.name = up.name WHERE r.parent IS NOT NULL
                    )
                    SELECT \(StoredRecordRow.columns), up.name FROM up LEFT JOIN records r ON r.zone_id = ? AND r.name = up.name
                    """),
                arguments: StatementArguments(chunk.map(\.databaseValue) + [zone.id.databaseValue, zone.id.databaseValue])
            )
            for row in rows {
                let name: String = row[16]
                let key = RecordKey(zoneName: zone.zone.zoneName, recordName: name)
                if (row[0] as Int64?) == nil {
                    loaded.absentRecords.insert(key)
                } else if let record = try stored(StoredRecordRow(row: row)) {
                    loaded.records[key] = record
                }
            }
            for name in chunk { loaded.ancestorsLoaded.insert(RecordKey(zoneName: zone.zone.zoneName, recordName: name)) }
        }
    }

    /// The cascade closure of the named records: every live record reaching them through `DELETE_SELF`
    /// references, transitively, and every `DELETE_SELF` and `VALIDATE` reference into the closure.
    private mutating func loadReferences(into targets: Set<RecordKey>, into loaded: inout RecordSnapshot) throws {
        guard !targets.isEmpty else { return }
        var seeds: [DatabaseValue] = []
        for target in targets {
            guard let zoneID = try zoneID(target.zoneName) else {
                loaded.referencesLoaded.insert(target)
                continue
            }
            seeds += [zoneID.databaseValue, target.recordName.databaseValue]
        }
        guard !seeds.isEmpty else { return }
        let rows = try Row.fetchAll(
            db,
            sql: """
                WITH RECURSIVE closure(zone_id, name) AS (
                    SELECT column1, column2 FROM (VALUES \(Array(repeating: "(?, ?)", count: seeds.count / 2).joined(separator: ", ")))
                    UNION
                    SELECT s.zone_id, s.name FROM closure c
                    JOIN record_refs f ON f.target_zone_id = c.zone_id AND f.target_name = c.name AND f.action = 1
                    JOIN records s ON s.id = f.source_id AND s.deleted = 0
                )
                SELECT \(StoredRecordRow.columns), c.zone_id, c.name, f.action FROM closure c
                LEFT JOIN record_refs f ON f.target_zone_id = c.zone_id AND f.target_name = c.name
                LEFT JOIN records r ON r.id = f.source_id
                """,
            arguments: StatementArguments(seeds)
        )
        for row in rows {
            guard let targetZone = try zoneName(ofID: row[16]) else { continue }
            let target = RecordKey(zoneName: targetZone, recordName: row[17])
            loaded.referencesLoaded.insert(target)
            guard let action = (row[18] as Int?).flatMap(ReferenceEdge.Action.init(rawValue:)), (row[0] as Int64?) != nil,
                let source = try stored(StoredRecordRow(row: row))
            else { continue }
            loaded.records[source.key] = source
            loaded.references[target, default: []].append(ReferenceEdge(source: source.key, target: target, action: action))
        }
    }

    // MARK: - Shares

    private func loadShares(_ names: Set<String>, into loaded: inout RecordSnapshot) throws {
        for chunk in SQLList.chunks(Array(names)) {
            for name in chunk { loaded.shares[name] = .some(nil) }
            let shares = try db.read(ShareTables.shares(named: Array(chunk), zoneID: zone.id))
            guard !shares.isEmpty else { continue }
            let participants = try db.read(ShareTables.participants(ofShareRecords: shares.map(\.recordID)))
            for share in shares {
                var state = share.state
                state.participants = participants[share.recordID] ?? []
                loaded.shares[share.name] = state
            }
        }
    }

    // MARK: - Receipts, users, unique values

    private func loadReceipts(_ receipts: Set<String>, into loaded: inout RecordSnapshot) throws {
        for chunk in SQLList.chunks(Array(receipts)) {
            for receipt in chunk { loaded.receipts[receipt] = .some(nil) }
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT a.*, r.receipt, r.field AS receipt_field, r.expires_at, z.name AS used_zone, u.name AS used_name, r.used_field
                    FROM asset_receipts r JOIN assets a ON a.id = r.asset_id
                    LEFT JOIN records u ON u.id = r.used_record_id LEFT JOIN zones z ON z.id = u.zone_id
                    WHERE r.receipt IN (\(SQLList.placeholders(chunk.count))) AND a.state = ?
                    """),
                arguments: StatementArguments(chunk.map(\.databaseValue) + [AssetState.stored.rawValue.databaseValue])
            )
            for row in rows {
                let usedZone: String? = row["used_zone"]
                let usedName: String? = row["used_name"]
                loaded.receipts[row["receipt"]] = ReceiptState(
                    asset: StoredAsset(
                        id: row["id"], database: SQLiteStore.database(from: row), size: row["size"], fileChecksum: row["checksum"],
                        contentType: row["content_type"]
                    ),
                    issuedFor: row["receipt_field"], expiresAt: row["expires_at"],
                    usedBy: usedZone.flatMap { zone in usedName.map { RecordKey(zoneName: zone, recordName: $0) } },
                    usedField: row["used_field"]
                )
            }
        }
    }

    private func loadUsers(_ users: Set<String>, into loaded: inout RecordSnapshot) throws {
        for chunk in SQLList.chunks(Array(users)) {
            for user in chunk { loaded.users[user] = false }
            let found = try String.fetchAll(
                db.cachedStatement(sql: "SELECT user_record_name FROM accounts WHERE container_id = ? AND user_record_name IN (\(SQLList.placeholders(chunk.count)))"),
                arguments: StatementArguments([database.containerID.databaseValue] + chunk.map(\.databaseValue))
            )
            for user in found { loaded.users[user] = true }
        }
    }

    /// The holders of unique values, one statement per field (and condition) with every value looked for.
    private func loadUniqueHolders(_ probes: Set<UniqueProbe>, into loaded: inout RecordSnapshot) throws {
        let groups = Dictionary(grouping: probes) { probe in
            UniqueGroup(recordType: probe.recordType, field: probe.field, condition: probe.condition)
        }
        for (group, probes) in groups {
            for probe in probes { loaded.uniqueHolders[probe] = [] }
            let byKey = Dictionary(probes.map { (IndexKey($0.key).bytes, $0) }, uniquingKeysWith: { first, _ in first })
            for chunk in SQLList.chunks(Array(byKey.keys)) {
                var sql = "SELECT a.value, r.name FROM field_index a JOIN records r ON r.id = a.record_id AND r.deleted = 0"
                var arguments: [DatabaseValue] = []
                if let condition = group.condition {
                    sql += """
                         JOIN field_index b ON b.zone_id = a.zone_id AND b.type = a.type AND b.field = ? AND b.kind = 0 AND b.value = ?
                            AND b.record_id = a.record_id
                        """
                    arguments += [condition.field.databaseValue, condition.key.databaseValue]
                }
                sql += " WHERE a.zone_id = ? AND a.type = ? AND a.field = ? AND a.kind = 0 AND a.value IN (\(SQLList.placeholders(chunk.count)))"
                arguments += [zone.id.databaseValue, group.recordType.databaseValue, group.field.databaseValue]
                arguments += chunk.map { IndexKey(bytes: $0).databaseValue }
                for row in try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)) {
                    guard let bytes = (row[0] as Data?).map(Array.init), let probe = byKey[bytes] else { continue }
                    loaded.uniqueHolders[probe, default: []].insert(row[1])
                }
            }
        }
    }

    private struct UniqueGroup: Hashable {
        var recordType: String
        var field: String
        var condition: ConstraintChecker.UniqueCheck.Condition?
    }
}
