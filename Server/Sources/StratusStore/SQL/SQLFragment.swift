/// A piece of SQL with its values where they appear, written as a string interpolation:
/// `"r.created_by = \(.text(user))"` binds `user`; `\(raw: column)` writes text; `\(fragment)` nests a fragment;
/// `\(anyOf: values)` tests against a list in the dialect's way. Placeholders are numbered when the whole
/// statement is rendered, in the order they appear in its text.
public struct SQLFragment: Sendable, ExpressibleByStringInterpolation {
    enum Part: Sendable {
        case text(String)
        case value(SQLValue)
        case membership([SQLValue])
        case phrase(SQLPhrase)
        case dialect(@Sendable (any SQLDialect) -> SQLFragment)
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

        /// Words the dialect writes its own way (``SQLPhrase``).
        public mutating func appendInterpolation(_ phrase: SQLPhrase) {
            parts.append(.phrase(phrase))
        }

        /// What the dialect writes for `build`, such as ``SQLDialect/hasMember(_:_:)``.
        public mutating func appendInterpolation(dialect build: @escaping @Sendable (any SQLDialect) -> SQLFragment) {
            parts.append(.dialect(build))
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
        func render(_ parts: [Part]) {
            for part in parts {
                switch part {
                case .text(let text): sql += text
                case .value(let value): sql += bind(value)
                case .membership(let list): sql += dialect.membership(list, bind: bind)
                case .phrase(let phrase): sql += dialect.phrase(phrase)
                case .dialect(let build): render(build(dialect).parts)
                }
            }
        }
        render(parts)
        return (sql, values)
    }
}
