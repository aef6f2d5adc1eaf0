import Foundation
import StratusKit

/// The app's edits and reads.
extension LocalStore {
    /// Keeps a record (new, or read from the store and edited) and the change to send, in one transaction; the
    /// engine sends it soon after. Edits accumulate in the record's ``Record/changedKeys`` until the server has them.
    public func save(_ record: Record) async throws {
        try write { file, number in try Self.putUnsent(record, number: number, into: file) }
        notify(.local, saved: [record.recordID])
        await engine.add(pendingRecordZoneChanges: [.saveRecord(record.recordID)])
    }

    /// Keeps records and the changes to send, all in one transaction: all are kept, or none; sent soon after.
    public func save(_ records: [Record]) async throws {
        guard !records.isEmpty else { return }
        try write { file, number in
            for record in records { try Self.putUnsent(record, number: number, into: file) }
        }
        notify(.local, saved: records.map(\.recordID))
        await engine.add(pendingRecordZoneChanges: records.map { .saveRecord($0.recordID) })
    }

    /// Deletes records here, all in one transaction, and soon after on the server.
    public func delete(_ recordIDs: [Record.ID]) async throws {
        guard !recordIDs.isEmpty else { return }
        try write { file, number in
            for recordID in recordIDs { try Self.markDeleted(recordID, number: number, in: file) }
        }
        notify(.local, deleted: recordIDs)
        await engine.add(pendingRecordZoneChanges: recordIDs.map { .deleteRecord($0) })
    }

    /// Deletes a record here and, soon after, on the server.
    public func delete(_ recordID: Record.ID) async throws {
        try write { file, number in try Self.markDeleted(recordID, number: number, in: file) }
        notify(.local, deleted: [recordID])
        await engine.add(pendingRecordZoneChanges: [.deleteRecord(recordID)])
    }

    /// Creates a zone on the server at the next send (records of a custom zone need it there first).
    public func saveZone(_ zoneID: Zone.ID) async throws {
        try write { file, number in
            try Self.markUnsent(zone: zoneID, kind: "saveZone", number: number, in: file)
        }
        await engine.add(pendingDatabaseChanges: [.saveZone(zoneID)])
    }

    /// Deletes a zone and its records, here at once and on the server at the next send.
    public func deleteZone(_ zoneID: Zone.ID) async throws {
        var deleted: [Record.ID] = []
        try write { file, number in
            deleted = try Self.recordIDs(inZone: zoneID, of: file)
            try file.run("DELETE FROM records WHERE zone = ? AND owner = ?", [.text(zoneID.zoneName), .text(zoneID.ownerName)])
            try Self.markUnsent(zone: zoneID, kind: "deleteZone", number: number, in: file)
        }
        notify(.local, deleted: deleted)
        await engine.add(pendingDatabaseChanges: [.deleteZone(zoneID)])
    }

    /// The record with this ID, as kept here (with the edits not sent yet).
    public func record(for recordID: Record.ID) throws -> Record? {
        try Self.record(recordID, in: file)
    }

    /// The records of a type (in one zone, or all), those `filter` keeps, in `order` (else by zone and name), at
    /// most `limit`.
    public func records(
        ofType recordType: String, inZone zoneID: Zone.ID? = nil, limit: Int? = nil,
        order: (@Sendable (Record, Record) -> Bool)? = nil, where filter: @Sendable (Record) -> Bool = { _ in true }
    ) throws -> [Record] {
        var found: [Record] = []
        var sql = "SELECT body FROM records WHERE type = ?"
        var values: [SQLiteFile.Value] = [.text(recordType)]
        if let zoneID {
            sql += " AND zone = ? AND owner = ?"
            values += [.text(zoneID.zoneName), .text(zoneID.ownerName)]
        }
        try file.query(sql + " ORDER BY zone, owner, name", values) { row in
            let record = try Self.decode(row.blob(0))
            if filter(record) { found.append(record) }
        }
        if let order { found.sort(by: order) }
        if let limit { found = Array(found.prefix(limit)) }
        return found
    }

    /// How many records of a type the store keeps (in one zone, or all).
    public func count(ofType recordType: String, inZone zoneID: Zone.ID? = nil) throws -> Int {
        var count = 0
        if let zoneID {
            try file.query("SELECT count(*) FROM records WHERE type = ? AND zone = ? AND owner = ?", [.text(recordType), .text(zoneID.zoneName), .text(zoneID.ownerName)]) {
                count = Int($0.integer(0))
            }
        } else {
            try file.query("SELECT count(*) FROM records WHERE type = ?", [.text(recordType)]) { count = Int($0.integer(0)) }
        }
        return count
    }

    // MARK: - Rows

    /// Runs `body` in a transaction with the next change number.
    @discardableResult
    func write(_ body: (SQLiteFile, Int64) throws -> Void) throws -> Int64 {
        lastChangeNumber += 1
        let number = lastChangeNumber
        try file.transaction { try body(file, number) }
        return number
    }

    static func key(_ id: Record.ID) -> [SQLiteFile.Value] {
        [.text(id.zoneID.zoneName), .text(id.zoneID.ownerName), .text(id.recordName)]
    }

    /// Keeps a record the server sent (fetched, or its answer to a send): a change of it waiting unsent stays marked.
    static func put(_ record: Record, into file: SQLiteFile) throws {
        try file.run(
            """
            INSERT INTO records (zone, owner, name, type, body) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (zone, owner, name) DO UPDATE SET type = excluded.type, body = excluded.body
            """,
            key(record.recordID) + [.text(record.recordType), .blob(record.storageData())]
        )
    }

    /// Keeps a record saved here, marked as a change to send: one row.
    static func putUnsent(_ record: Record, number: Int64, into file: SQLiteFile) throws {
        try file.run(
            "INSERT OR REPLACE INTO records (zone, owner, name, type, body, unsent, number) VALUES (?, ?, ?, ?, ?, 'save', ?)",
            [
                .text(record.recordID.zoneID.zoneName), .text(record.recordID.zoneID.ownerName), .text(record.recordID.recordName),
                .text(record.recordType), .blob(record.storageData()), .integer(number),
            ]
        )
    }

    /// Deletes a record here, leaving a row with no type and no body that marks the deletion to send.
    static func markDeleted(_ id: Record.ID, number: Int64, in file: SQLiteFile) throws {
        try file.run(
            "INSERT OR REPLACE INTO records (zone, owner, name, type, body, unsent, number) VALUES (?, ?, ?, '', X'', 'delete', ?)",
            key(id) + [.integer(number)]
        )
    }

    /// The record with this ID, unless there is none or its deletion waits unsent.
    static func record(_ id: Record.ID, in file: SQLiteFile) throws -> Record? {
        var found: Record?
        try file.query("SELECT body FROM records WHERE zone = ? AND owner = ? AND name = ? AND unsent IS NOT 'delete'", key(id)) {
            found = try decode($0.blob(0))
        }
        return found
    }

    static func decode(_ body: Data) throws -> Record {
        do {
            return try Record(storageData: body)
        } catch {
            throw LocalStoreError("a kept record cannot be read: \(error)")
        }
    }

    /// The records kept in a zone (not those deleted here and not sent yet).
    static func recordIDs(inZone zoneID: Zone.ID, of file: SQLiteFile) throws -> [Record.ID] {
        var ids: [Record.ID] = []
        try file.query("SELECT name FROM records WHERE zone = ? AND owner = ? AND unsent IS NOT 'delete'", [.text(zoneID.zoneName), .text(zoneID.ownerName)]) {
            ids.append(Record.ID(recordName: $0.text(0), zoneID: zoneID))
        }
        return ids
    }

    static func markUnsent(zone zoneID: Zone.ID, kind: String, number: Int64, in file: SQLiteFile) throws {
        try file.run(
            "INSERT OR REPLACE INTO unsent (zone, owner, name, kind, number) VALUES (?, ?, '', ?, ?)",
            [.text(zoneID.zoneName), .text(zoneID.ownerName), .text(kind), .integer(number)]
        )
    }
}
