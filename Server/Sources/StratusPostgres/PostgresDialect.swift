import Foundation
import PostgresNIO
import StratusStore

/// How PostgreSQL writes what the store's statements leave to the dialect (``SQLDialect``).
struct PostgresDialect: SQLDialect {
    /// The store's position offset (``ChangePosition``), which the settled bound takes.
    var positionOffset: Int64 = 0

    func placeholder(_ position: Int) -> String { "$\(position)" }

    /// A list of one kind is one array parameter, so that the text (and its prepared statement) does not depend
    /// on the list's length.
    func membership(_ values: [SQLValue], bind: (SQLValue) -> String) -> String {
        if SQLValue.array(values).postgresArray != nil { return " = ANY(\(bind(.array(values))))" }
        return " IN (\(values.map(bind).joined(separator: ", ")))"
    }

    func phrase(_ phrase: SQLPhrase) -> String {
        switch phrase {
        case .live(let alias): live(alias)
        case .lockForUpdate: " FOR UPDATE"
        case .lockSkippingLocked: " FOR UPDATE SKIP LOCKED"
        case .lockForShare: " FOR SHARE"
        case .settledBound: ChangePosition.settledBoundSQL(offset: positionOffset)
        case .participantOrder: "ordinal"
        case .byteLength(let column): "octet_length(\(column))"
        }
    }

    func live(_ alias: String) -> String { "NOT \(alias).deleted" }

    /// Text compared and sorted by UTF-8 bytes, as SQLite and index keys order it.
    func byteOrdered(_ column: String) -> String { #"\#(column) COLLATE "C""# }

    func order(ascending: Bool) -> String { ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST" }

    /// PostgreSQL's `stratus_distance` takes plain numbers: each entry keeps its number beside its key.
    let latitudeColumn = "number"

    let disablesRecordIndexesBehindLookups = false

    func hasMember(_ column: String, _ name: String) -> SQLFragment {
        "(\(raw: column)::jsonb) ? \(.text(name))"
    }

    /// One array per column (`unnest`), so that the text, and its prepared statement, does not depend on the
    /// number of rows; a column whose values are not all of one kind (or hold `NULL`) falls back to `VALUES`.
    func insertRows(into table: String, columns: [String], rows: [[SQLValue]]) -> SQLFragment {
        var arrays: [SQLFragment] = []
        for index in columns.indices {
            let values = rows.map { $0[index] }
            guard let type = Self.arrayType(of: values) else {
                let tuples = rows.map { row -> SQLFragment in "(\(SQLFragment.joined(row.map { "\($0)" }, separator: ", ")))" }
                return "INSERT INTO \(raw: table) (\(raw: columns.joined(separator: ", "))) VALUES \(SQLFragment.joined(tuples, separator: ", "))"
            }
            arrays.append("\(.array(values))::\(raw: type)[]")
        }
        return "INSERT INTO \(raw: table) (\(raw: columns.joined(separator: ", "))) SELECT * FROM unnest(\(SQLFragment.joined(arrays, separator: ", ")))"
    }

    /// PostgreSQL's name for an array of `values`, when they are all of one kind.
    private static func arrayType(of values: [SQLValue]) -> String? {
        guard SQLValue.array(values).postgresArray != nil else { return nil }
        switch values.first {
        case .integer?: return "bigint"
        case .double?: return "float8"
        case .text?: return "text"
        case .bytes?: return "bytea"
        default: return nil
        }
    }

    func removingMember(_ column: String, _ name: String) -> SQLFragment {
        "((\(raw: column)::jsonb) - \(.text(name)))::text"
    }
}

extension SQLValue {
    /// An array of one kind as postgres-nio encodes it, or `nil` for a mixed or nested list.
    fileprivate var postgresArray: (any PostgresThrowingDynamicTypeEncodable)? {
        guard case .array(let values) = self else { return nil }
        switch values.first {
        case .integer?:
            let numbers = values.compactMap { if case .integer(let number) = $0 { number } else { nil } }
            return numbers.count == values.count ? numbers : nil
        case .double?:
            let numbers = values.compactMap { if case .double(let number) = $0 { number } else { nil } }
            return numbers.count == values.count ? numbers : nil
        case .text?:
            let texts = values.compactMap { if case .text(let text) = $0 { text } else { nil } }
            return texts.count == values.count ? texts : nil
        case .bytes?:
            let buffers = values.compactMap { if case .bytes(let bytes) = $0 { ByteBuffer(bytes: bytes) } else { nil } }
            return buffers.count == values.count ? buffers : nil
        default: return nil
        }
    }
}

extension PostgresQuery {
    /// A statement the store wrote (``SQLFragment``), rendered in ``PostgresDialect`` with its values bound.
    init(_ fragment: SQLFragment, dialect: PostgresDialect = PostgresDialect()) throws {
        let (sql, values) = fragment.rendered(in: dialect)
        self.init(unsafeSQL: sql, binds: try Self.bindings(values).bindings)
    }

    /// `values` as postgres-nio binds them, and the Swift type of each (with the text, what a prepared
    /// statement is kept for: ``StatementShapes``).
    static func bindings(_ values: [SQLValue]) throws -> (bindings: PostgresBindings, types: [String]) {
        var bindings = PostgresBindings()
        var types: [String] = []
        for value in values {
            let encodable: any PostgresThrowingDynamicTypeEncodable
            switch value {
            case .integer(let number): encodable = number
            case .double(let number): encodable = number
            case .text(let text): encodable = text
            case .bytes(let bytes): encodable = ByteBuffer(bytes: bytes)
            case .bool(let flag): encodable = flag
            case .null:
                bindings.appendNull()
                types.append("NULL")
                continue
            case .array:
                guard let array = value.postgresArray else { throw StorageError(.internalFailure, "a statement bound a list of mixed values") }
                encodable = array
            }
            try bindings.append(encodable)
            types.append(String(describing: type(of: encodable)))
        }
        return (bindings, types)
    }
}

extension SQLValue {
    /// A cell as postgres-nio decoded it, by its PostgreSQL type.
    init(_ cell: PostgresCell) throws {
        guard cell.bytes != nil else {
            self = .null
            return
        }
        switch cell.dataType {
        case .int2, .int4, .int8: self = .integer(try cell.decode(Int64.self))
        case .float4, .float8: self = .double(try cell.decode(Double.self))
        case .bool: self = .bool(try cell.decode(Bool.self))
        case .bytea: self = .bytes(Array(buffer: try cell.decode(ByteBuffer.self)))
        default: self = .text(try cell.decode(String.self))
        }
    }
}

extension [PostgresRow] {
    /// The rows as the store reads them, sharing one column index.
    func sqlRows() throws -> [SQLRow] {
        guard let first else { return [] }
        let columns = SQLColumns(first.map(\.columnName))
        return try map { row in SQLRow(columns: columns, values: try row.map(SQLValue.init)) }
    }
}
