import Foundation
import GRDB
import StratusStore

/// Reading and writing every table row by row, for `stratus migrate` (see ``StoreCopier``).
extension SQLiteStore: CopyableStore {
    public var copyDescription: String { "the SQLite file \(configuration.path)" }

    public var ownMetaKeys: Set<String> { [ChangeSequence.metaKey, "schema_version"] }

    public func copyRows(of table: CopyTable, after key: [CopyValue]?, limit: Int) async throws -> [[CopyValue]] {
        let keyColumns = table.key.map { Self.stored($0, in: table) }
        var arguments: [DatabaseValue] = []
        var condition = ""
        if let key {
            arguments = key.map(\.databaseValue)
            condition = "WHERE (\(keyColumns.joined(separator: ", "))) > (\(Array(repeating: "?", count: key.count).joined(separator: ", ")))"
        }
        let selected = table.columns.map { column in
            column.kind == .blob ? "CAST(\(column.name) AS BLOB)" : Self.stored(column.name, in: table)
        }
        let sql = """
            SELECT \(selected.joined(separator: ", ")) FROM \(table.name) \(condition)
            ORDER BY \(keyColumns.joined(separator: ", ")) LIMIT \(limit)
            """
        let bound = StatementArguments(arguments)
        return try await read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map { row in
                zip(row.databaseValues, table.columns).map { value, column in CopyValue(value, kind: column.kind) }
            }
        }
    }

    public func insertCopiedRows(_ rows: [[CopyValue]], into table: CopyTable) async throws {
        let columns = table.columns.map { Self.stored($0.name, in: table) }
        let sql = "INSERT INTO \(table.name) (\(columns.joined(separator: ", "))) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        do {
            try await pool.write { db in
                let statement = try db.makeStatement(sql: sql)
                for row in rows {
                    try statement.execute(arguments: StatementArguments(row.map(\.databaseValue)))
                }
            }
        } catch {
            throw StorageError.translating(error)
        }
    }

    public func finishCopy(highestPosition: Int64) async throws {
        do {
            try await pool.write { db in
                // Every later change comes after the copied ones (ChangeSequence continues from this number).
                try db.execute(
                    sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = MAX(value, excluded.value)",
                    arguments: [ChangeSequence.metaKey, highestPosition]
                )
                // The triggers counted the copied references on top of the copied counts.
                try db.execute(sql: "UPDATE assets SET ref_count = (SELECT count(*) FROM asset_refs WHERE asset_refs.asset_id = assets.id)")
                // Every process's schema cache reads the copied schemas.
                try db.execute(sql: "UPDATE meta SET value = value + 1 WHERE key = 'schema_version'")
            }
        } catch {
            throw StorageError.translating(error)
        }
    }

    /// A portable column as SQLite stores it: participants' order is the rowid.
    public static func stored(_ column: String, in table: CopyTable) -> String {
        switch (table.name, column) {
        case ("share_participants", "ordinal"): "rowid"
        default: column
        }
    }
}

extension CopyValue {
    /// A stored value read as `kind`.
    init(_ value: DatabaseValue, kind: CopyTable.Kind) {
        switch (value.storage, kind) {
        case (.null, _): self = .null
        case (.int64(let number), .real): self = .real(Double(number))
        case (.int64(let number), _): self = .integer(number)
        case (.double(let number), .integer), (.double(let number), .boolean): self = .integer(Int64(number))
        case (.double(let number), _): self = .real(number)
        case (.string(let text), .blob): self = .blob(Array(text.utf8))
        case (.string(let text), _): self = .text(text)
        case (.blob(let data), .text): self = .text(String(decoding: data, as: UTF8.self))
        case (.blob(let data), _): self = .blob(Array(data))
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let number): number.databaseValue
        case .real(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .blob(let bytes): Data(bytes).databaseValue
        }
    }
}
