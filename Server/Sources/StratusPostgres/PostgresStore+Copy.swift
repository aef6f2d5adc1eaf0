import Foundation
import PostgresNIO
import StratusModel
import StratusStore

/// Reading and writing every table row by row, for `stratus migrate` (see ``StoreCopier``).
extension PostgresStore: CopyableStore {
    public var copyDescription: String { "the PostgreSQL database \(configuration.redactedDescription)" }

    /// A schema's version, which a node's schema cache compares, starts again at 1 in a copy; an index entry's
    /// number is read from its key as it is copied in.
    public var ownColumns: [String: Set<String>] { ["schemas": ["version"], "field_index": ["number"]] }

    public var ownMetaKeys: Set<String> { ["position_offset", "events_pruned_through"] }

    public func copyRows(of table: CopyTable, after key: [CopyValue]?, limit: Int) async throws -> [[CopyValue]] {
        var bindings = PostgresBindings()
        var condition = ""
        if let key {
            let keyColumns = table.key.map { column in Self.comparable(column, in: table) }
            var placeholders: [String] = []
            for value in key {
                try Self.bind(value, to: &bindings)
                placeholders.append("$\(bindings.count)")
            }
            condition = "WHERE (\(keyColumns.joined(separator: ", "))) > (\(placeholders.joined(separator: ", ")))"
        }
        let selected = table.columns.map { column in
            switch column.kind {
            case .integer: "\(column.name)::bigint"
            case .boolean: "\(column.name)::int::bigint"
            case .real: "\(column.name)::float8"
            case .text, .blob: column.name
            }
        }
        let sql = """
            SELECT \(selected.joined(separator: ", ")) FROM \(table.name) \(condition)
            ORDER BY \(table.key.map { Self.comparable($0, in: table) }.joined(separator: ", ")) LIMIT \(limit)
            """
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        return try await read { connection in
            var rows: [[CopyValue]] = []
            for try await row in try await connection.query(query, logger: self.logger) {
                var values: [CopyValue] = []
                values.reserveCapacity(table.columns.count)
                for (cell, column) in zip(row, table.columns) {
                    values.append(try Self.copyValue(cell, kind: column.kind))
                }
                rows.append(values)
            }
            return rows
        }
    }

    public func insertCopiedRows(_ rows: [[CopyValue]], into table: CopyTable) async throws {
        guard !rows.isEmpty else { return }
        var writer = JSONWriter()
        writer.beginArray()
        let keyIndex = table.index(of: "value")
        for row in rows {
            writer.arrayElement()
            writer.beginObject()
            for (value, column) in zip(row, table.columns) {
                writer.key(column.name)
                Self.write(value, kind: column.kind, to: &writer)
            }
            // Index entries keep their key's number beside it, for distance filters.
            if table.name == "field_index", let keyIndex, case .blob(let bytes) = row[keyIndex] {
                writer.key("number")
                if let number = IndexKey(bytes: bytes).number { writer.double(number) } else { writer.null() }
            }
            writer.endObject()
        }
        writer.endArray()
        var names = table.columns.map(\.name)
        var selected = table.columns.map { $0.kind == .blob ? "decode(\($0.name), 'hex')" : $0.name }
        var declared = table.columns.map { "\($0.name) \(Self.recordsetType($0.kind))" }
        if table.name == "field_index" {
            names.append("number")
            selected.append("number")
            declared.append("number double precision")
        }
        let sql = """
            INSERT INTO \(table.name) (\(names.joined(separator: ", ")))
            SELECT \(selected.joined(separator: ", ")) FROM jsonb_to_recordset($1::jsonb) AS v(\(declared.joined(separator: ", ")))
            """
        let json = writer.text
        try await write { write in
            try await write.connection.run(PostgresQuery(unsafeSQL: sql, binds: try binds(json)), logger: write.logger)
        }
    }

    public func finishCopy(highestPosition: Int64) async throws {
        // New positions are (transaction id + offset) << 20 + counter (ChangePosition): above every copied one.
        let offset = max(positionOffset, (highestPosition >> ChangePosition.counterBits) + 1)
        try await write { write in
            for (table, column) in [("zones", "id"), ("records", "id"), ("share_participants", "ordinal"), ("mail_queue", "id")] {
                try await write.connection.run(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT setval(pg_get_serial_sequence('\(table)', '\(column)'), COALESCE((SELECT MAX(\(column)) FROM \(table)), 0) + 1, false)
                            """
                    ),
                    logger: write.logger
                )
            }
            try await write.connection.run(
                """
                INSERT INTO meta (key, value) VALUES ('position_offset', convert_to(\(String(offset)), 'UTF8'))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """,
                logger: write.logger
            )
            try await write.connection.run(
                "UPDATE assets SET ref_count = (SELECT count(*) FROM asset_refs WHERE asset_refs.asset_id = assets.id)", logger: write.logger
            )
        }
        // The planner learns how much was copied before the first query.
        try await read { connection in try await connection.run("ANALYZE", logger: self.logger) }
    }

    /// A key column as compared and ordered: text bytewise, like every other backend.
    private static func comparable(_ column: String, in table: CopyTable) -> String {
        table.columns.first { $0.name == column }?.kind == .text ? "\(column) COLLATE \"C\"" : column
    }

    private static func recordsetType(_ kind: CopyTable.Kind) -> String {
        switch kind {
        case .integer: "bigint"
        case .boolean: "boolean"
        case .real: "double precision"
        case .text, .blob: "text"
        }
    }

    private static func bind(_ value: CopyValue, to bindings: inout PostgresBindings) throws {
        switch value {
        case .null: bindings.appendNull()
        case .integer(let number): bindings.append(number)
        case .real(let number): bindings.append(number)
        case .text(let text): bindings.append(text)
        case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
        }
    }

    private static func copyValue(_ cell: PostgresCell, kind: CopyTable.Kind) throws -> CopyValue {
        switch kind {
        case .integer, .boolean: try cell.decode(Int64?.self).map(CopyValue.integer) ?? .null
        case .real: try cell.decode(Double?.self).map(CopyValue.real) ?? .null
        case .text: try cell.decode(String?.self).map(CopyValue.text) ?? .null
        case .blob: try cell.decode(ByteBuffer?.self).map { CopyValue.blob(Array($0.readableBytesView)) } ?? .null
        }
    }

    private static func write(_ value: CopyValue, kind: CopyTable.Kind, to writer: inout JSONWriter) {
        switch value {
        case .null: writer.null()
        case .integer(let number) where kind == .boolean: writer.bool(number != 0)
        case .integer(let number): writer.integer(number)
        // jsonb has no NaN or infinities; as text, double precision's input reads them.
        case .real(let number) where !number.isFinite: writer.string(number.isNaN ? "NaN" : number < 0 ? "-Infinity" : "Infinity")
        case .real(let number): writer.double(number)
        case .text(let text): writer.string(text)
        case .blob(let bytes): writer.string(bytes.hexadecimal)
        }
    }
}
