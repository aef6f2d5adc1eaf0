/// One row a statement read, its values by column name, as the backend's driver decoded them.
public struct SQLRow: Sendable {
    private let columns: SQLColumns
    private let cells: [SQLValue]

    /// A row of a statement whose columns are `columns`, with a value for each, in their order.
    public init(columns: SQLColumns, values: [SQLValue]) {
        self.columns = columns
        cells = values
    }

    /// A row on its own, from values by column name.
    public init(_ values: [String: SQLValue]) {
        let names = Array(values.keys)
        self.init(columns: SQLColumns(names), values: names.map { values[$0]! })
    }

    /// Whether the column holds `NULL` (a column the row lacks counts as `NULL`).
    public func isNull(_ column: some SQLColumnKey) -> Bool {
        guard let index = column.position(in: columns) else { return true }
        return cells[index] == .null
    }

    /// The column's value as the driver decoded it.
    public func value(_ column: some SQLColumnKey) throws(StorageError) -> SQLValue {
        guard let index = column.position(in: columns) else { throw StorageError(.internalFailure, "a row has no column \(column)") }
        return cells[index]
    }

    private func mismatch(_ column: some SQLColumnKey, _ expected: String) -> StorageError {
        StorageError(.internalFailure, "column \(column) holds \(String(describing: try? value(column))), not \(expected)")
    }

    public func integer(_ column: some SQLColumnKey) throws(StorageError) -> Int64 {
        guard case .integer(let number) = try value(column) else { throw mismatch(column, "an integer") }
        return number
    }

    public func text(_ column: some SQLColumnKey) throws(StorageError) -> String {
        guard case .text(let text) = try value(column) else { throw mismatch(column, "text") }
        return text
    }

    /// The column's text, or `nil` for `NULL`.
    public func optionalText(_ column: some SQLColumnKey) throws(StorageError) -> String? {
        if case .null = try value(column) { return nil }
        return try text(column)
    }

    /// The column's integer, or `nil` for `NULL`.
    public func optionalInteger(_ column: some SQLColumnKey) throws(StorageError) -> Int64? {
        if case .null = try value(column) { return nil }
        return try integer(column)
    }

    /// A boolean column: PostgreSQL's `BOOLEAN`, or SQLite's 0 and 1.
    public func bool(_ column: some SQLColumnKey) throws(StorageError) -> Bool {
        switch try value(column) {
        case .bool(let flag): return flag
        case .integer(let number): return number != 0
        default: throw mismatch(column, "a boolean")
        }
    }

    public func bytes(_ column: some SQLColumnKey) throws(StorageError) -> [UInt8] {
        guard case .bytes(let bytes) = try value(column) else { throw mismatch(column, "bytes") }
        return bytes
    }
}

/// The column names of a statement's rows, and where each is, shared by all its rows.
public final class SQLColumns: Sendable {
    public let names: [String]
    let index: [String: Int]

    /// When a name repeats, the first column of that name is the one read.
    public init(_ names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
    }
}

/// How a row's column is named: by its name, or by its position in the select list (from 0), which is faster
/// where many rows are read.
public protocol SQLColumnKey: Sendable, CustomStringConvertible {
    func position(in columns: SQLColumns) -> Int?
}

extension String: SQLColumnKey {
    public func position(in columns: SQLColumns) -> Int? { columns.index[self] }
}

extension Int: SQLColumnKey {
    public func position(in columns: SQLColumns) -> Int? { self >= 0 && self < columns.names.count ? self : nil }
}
