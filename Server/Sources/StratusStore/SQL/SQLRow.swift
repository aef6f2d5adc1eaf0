/// One row a statement read, its values by column name, as the backend's driver decoded them.
public struct SQLRow: Sendable {
    public var values: [String: SQLValue]

    public init(_ values: [String: SQLValue]) {
        self.values = values
    }

    private func value(_ column: String) throws(StorageError) -> SQLValue {
        guard let value = values[column] else { throw StorageError(.internalFailure, "a row has no column \(column)") }
        return value
    }

    private func mismatch(_ column: String, _ expected: String) -> StorageError {
        StorageError(.internalFailure, "column \(column) holds \(String(describing: values[column])), not \(expected)")
    }

    public func integer(_ column: String) throws(StorageError) -> Int64 {
        guard case .integer(let number) = try value(column) else { throw mismatch(column, "an integer") }
        return number
    }

    public func text(_ column: String) throws(StorageError) -> String {
        guard case .text(let text) = try value(column) else { throw mismatch(column, "text") }
        return text
    }

    /// The column's text, or `nil` for `NULL`.
    public func optionalText(_ column: String) throws(StorageError) -> String? {
        if case .null = try value(column) { return nil }
        return try text(column)
    }

    /// A boolean column: PostgreSQL's `BOOLEAN`, or SQLite's 0 and 1.
    public func bool(_ column: String) throws(StorageError) -> Bool {
        switch try value(column) {
        case .bool(let flag): return flag
        case .integer(let number): return number != 0
        default: throw mismatch(column, "a boolean")
        }
    }

    public func bytes(_ column: String) throws(StorageError) -> [UInt8] {
        guard case .bytes(let bytes) = try value(column) else { throw mismatch(column, "bytes") }
        return bytes
    }
}
