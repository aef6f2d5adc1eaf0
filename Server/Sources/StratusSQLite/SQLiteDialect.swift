import Foundation
import GRDB
import GRDBSQLite
import StratusStore

/// How SQLite writes what the store's statements leave to the dialect (``SQLDialect``).
struct SQLiteDialect: SQLDialect {
    func placeholder(_ position: Int) -> String { "?" }

    func membership(_ values: [SQLValue], bind: (SQLValue) -> String) -> String {
        " IN (\(values.map(bind).joined(separator: ", ")))"
    }

    /// As the records' and zones' partial indexes are written (`WHERE deleted = 0`), so that they apply.
    /// SQLite has one writer at a time: nothing else can have locked a row.
    func phrase(_ phrase: SQLPhrase) -> String {
        switch phrase {
        case .live(let alias): live(alias)
        case .lockForUpdate: ""
        case .lockSkippingLocked: ""
        case .lockForShare: ""
        // One writer at a time commits positions in order: every committed one is settled.
        case .settledBound: "\(Int64.max)"
        case .participantOrder: "rowid"
        // length() counts characters of text; of a blob, bytes.
        case .byteLength(let column): "length(CAST(\(column) AS BLOB))"
        }
    }

    func live(_ alias: String) -> String { "\(alias).deleted = 0" }

    /// SQLite's default collation (`BINARY`) compares UTF-8 bytes.
    func byteOrdered(_ column: String) -> String { column }

    /// SQLite sorts `NULL` first ascending and last descending by itself.
    func order(ascending: Bool) -> String { ascending ? "ASC" : "DESC" }

    /// SQLite's `stratus_distance` reads the latitude from the entry's index key.
    let latitudeColumn = "value"

    /// Without it, SQLite may drive a query by `records_type` and check every record of the type.
    let disablesRecordIndexesBehindLookups = true

    func hasMember(_ column: String, _ name: String) -> SQLFragment {
        "json_type(\(raw: column), \(.text(Self.path(name)))) IS NOT NULL"
    }

    func removingMember(_ column: String, _ name: String) -> SQLFragment {
        "json_remove(\(raw: column), \(.text(Self.path(name))))"
    }

    /// The JSON path of an object's member.
    private static func path(_ name: String) -> String {
        "$.\"\(name)\""
    }
}

extension StatementArguments {
    /// The store's values as GRDB binds them.
    init(_ values: [SQLValue]) {
        self.init(values.map(\.databaseValue))
    }
}

extension SQLValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let number): number.databaseValue
        case .double(let number): number.databaseValue
        case .text(let text): text.databaseValue
        case .bytes(let bytes): Data(bytes).databaseValue
        case .bool(let flag): flag.databaseValue
        case .null: .null
        // SQLiteDialect never asks for arrays.
        case .array: .null
        }
    }
}

extension Database {
    /// Runs a read the store wrote once (``SQLRead``) on this connection, synchronously.
    func read<Value>(_ read: SQLRead<Value>) throws -> Value {
        try read.run { statement in try rows(statement) }
    }

    /// The rows of a statement the store wrote, rendered in ``SQLiteDialect``.
    func rows(_ statement: SQLFragment) throws -> [SQLRow] {
        let (sql, values) = statement.rendered(in: SQLiteDialect())
        let prepared = try cachedStatement(sql: sql)
        let columns = SQLColumns(prepared.columnNames)
        let columnCount = CInt(columns.names.count)
        var rows: [SQLRow] = []
        let cursor = try Row.fetchCursor(prepared, arguments: StatementArguments(values))
        // Each cell is read from the statement the cursor stepped to: a row's own values would look up each
        // column's name too.
        while try cursor.next() != nil {
            var cells: [SQLValue] = []
            cells.reserveCapacity(Int(columnCount))
            for index in 0..<columnCount {
                cells.append(SQLValue(sqliteStatement: prepared.sqliteStatement, column: index))
            }
            rows.append(SQLRow(columns: columns, values: cells))
        }
        return rows
    }
}

extension SQLValue {
    /// The cell of `column` in the row `statement` stepped to, copied once into a Swift value.
    init(sqliteStatement statement: SQLiteStatement, column: CInt) {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: self = .double(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            // The text first, then its length (SQLite's documented order): UTF-8 without scanning for its end.
            let text = sqlite3_column_text(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            self = .text(text.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            self = .bytes(bytes.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? [])
        default: self = .null
        }
    }
}
