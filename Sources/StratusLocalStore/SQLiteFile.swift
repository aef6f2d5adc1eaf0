import CStratusSQLite
import Foundation

/// Why the local store could not do what was asked: the SQLite file could not be opened, read or written, or a
/// stored value could not be read back.
public struct LocalStoreError: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// One connection to the store's SQLite file, used by one actor at a time: statements prepared once and kept,
/// transactions, and typed binding and reading.
final class SQLiteFile {
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]

    /// A value bound to a statement's `?`.
    enum Value {
        case text(String)
        case integer(Int64)
        case blob(Data)
        case null
    }

    init(path: String) throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(handle)
            throw LocalStoreError("cannot open the local store at \(path): \(message)")
        }
        sqlite3_busy_timeout(handle, 5_000)
        // WAL and NORMAL: a commit survives a crash of the app; the last ones may be lost to a power cut, as
        // Core Data's and GRDB's defaults allow.
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit {
        for statement in statements.values { sqlite3_finalize(statement) }
        sqlite3_close(handle)
    }

    /// Runs statements that take no values and answer no rows.
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    /// Runs `body` in one transaction: all its writes, or none.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs a statement with `values`, for its effect.
    func run(_ sql: String, _ values: [Value] = []) throws {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw error(sql) }
    }

    /// Runs a query with `values`, handing each row to `row`.
    func query(_ sql: String, _ values: [Value] = [], row: (Row) throws -> Void) throws {
        let statement = try prepared(sql, values)
        defer { sqlite3_reset(statement) }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw error(sql) }
            try row(Row(statement: statement))
        }
    }

    /// One row of a query, read by column index.
    struct Row {
        let statement: OpaquePointer

        func text(_ column: Int32) -> String {
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
        }

        func integer(_ column: Int32) -> Int64 {
            sqlite3_column_int64(statement, column)
        }

        func blob(_ column: Int32) -> Data {
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return Data() }
            return Data(bytes: bytes, count: count)
        }

        func isNull(_ column: Int32) -> Bool {
            sqlite3_column_type(statement, column) == SQLITE_NULL
        }
    }

    private func prepared(_ sql: String, _ values: [Value]) throws -> OpaquePointer {
        let statement: OpaquePointer
        if let kept = statements[sql] {
            statement = kept
        } else {
            var made: OpaquePointer?
            guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &made, nil) == SQLITE_OK, let made else {
                throw error(sql)
            }
            statements[sql] = made
            statement = made
        }
        sqlite3_clear_bindings(statement)
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let code: Int32 = switch value {
            case .text(let text): sqlite3_bind_text(statement, position, text, -1, Self.transient)
            case .integer(let number): sqlite3_bind_int64(statement, position, number)
            case .blob(let data): data.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), Self.transient) }
            case .null: sqlite3_bind_null(statement, position)
            }
            guard code == SQLITE_OK else { throw error(sql) }
        }
        return statement
    }

    /// SQLite copies what is bound.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private func error(_ sql: String) -> LocalStoreError {
        LocalStoreError("SQLite: \(String(cString: sqlite3_errmsg(handle))) (\(sql.prefix(80)))")
    }
}
