/// A value a statement binds, as both backends' drivers take it.
public enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case double(Double)
    case text(String)
    /// Bytes, such as an ``IndexKey``'s.
    case bytes([UInt8])
    /// Several values of one kind bound as one array (only dialects that bind arrays receive it).
    case array([SQLValue])
}

/// What differs between the SQL dialects the backends speak, for the statements the store writes once
/// (``QueryStatement``). Each backend has one dialect; everything else in those statements is shared.
public protocol SQLDialect: Sendable {
    /// How the parameter at `position` (from 1, in the order values appear in the text) is written.
    func placeholder(_ position: Int) -> String
    /// What follows a column to test it against a non-empty list: ` IN (...)` with one parameter per value,
    /// or ` = ANY(...)` with one array; `bind` binds a value and returns its placeholder.
    func membership(_ values: [SQLValue], bind: (SQLValue) -> String) -> String
    /// The condition that a record (under `alias`) is live, written as the dialect's partial indexes expect it.
    func live(_ alias: String) -> String
    /// A text column as it is compared and sorted: UTF-8 byte order in every dialect.
    func byteOrdered(_ column: String) -> String
    /// `ASC` or `DESC`, with `NULL` first ascending and last descending.
    func order(ascending: Bool) -> String
    /// The `field_index` column the dialect's `stratus_distance` takes as a location's latitude.
    var latitudeColumn: String { get }
    /// Whether the records table's own indexes are turned off (unary `+`) when a field index drives the query.
    var disablesRecordIndexesBehindLookups: Bool { get }
}

/// A piece of SQL with its values where they appear, written as a string interpolation:
/// `"r.created_by = \(.text(user))"` binds `user`; `\(raw: column)` writes text; `\(fragment)` nests a fragment;
/// `\(anyOf: values)` tests against a list in the dialect's way. Placeholders are numbered when the whole
/// statement is rendered, in the order they appear in its text.
public struct SQLFragment: Sendable, ExpressibleByStringInterpolation {
    enum Part: Sendable {
        case text(String)
        case value(SQLValue)
        case membership([SQLValue])
    }

    var parts: [Part]

    public init(stringLiteral value: String) {
        parts = [.text(value)]
    }

    public init(stringInterpolation: StringInterpolation) {
        parts = stringInterpolation.parts
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { parts.append(.text(literal)) }
        }

        /// Binds a value.
        public mutating func appendInterpolation(_ value: SQLValue) {
            parts.append(.value(value))
        }

        /// Writes trusted text (column names, keywords, numbers the store chose).
        public mutating func appendInterpolation(raw text: String) {
            parts.append(.text(text))
        }

        public mutating func appendInterpolation(_ fragment: SQLFragment) {
            parts += fragment.parts
        }

        /// ` IN (...)` or ` = ANY(...)` over a non-empty list.
        public mutating func appendInterpolation(anyOf values: [SQLValue]) {
            parts.append(.membership(values))
        }
    }

    /// `fragments` one after another with `separator` between them.
    public static func joined(_ fragments: [SQLFragment], separator: String) -> SQLFragment {
        var result = SQLFragment(stringLiteral: "")
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { result.parts.append(.text(separator)) }
            result.parts += fragment.parts
        }
        return result
    }

    /// The text in `dialect` and its values in the order of their placeholders.
    public func rendered(in dialect: some SQLDialect) -> (sql: String, values: [SQLValue]) {
        var sql = ""
        var values: [SQLValue] = []
        func bind(_ value: SQLValue) -> String {
            values.append(value)
            return dialect.placeholder(values.count)
        }
        for part in parts {
            switch part {
            case .text(let text): sql += text
            case .value(let value): sql += bind(value)
            case .membership(let list): sql += dialect.membership(list, bind: bind)
            }
        }
        return (sql, values)
    }
}
