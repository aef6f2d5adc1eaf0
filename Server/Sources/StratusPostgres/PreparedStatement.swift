import Logging
import PostgresNIO

/// The text of a statement that runs on most requests, and so is prepared: PostgreSQL parses and plans it
/// once per connection instead of on every call (planning a lookup cost several times more than running it).
///
/// postgres-nio prepares a statement on a connection the first time it runs there, under ``name``. The SQL
/// is fixed: values are bound as `$1`, `$2`, ..., never written into the text.
protocol PreparedText {
    /// Unique among the store's statements, at most 50 characters (PostgreSQL cuts names at 63).
    static var name: String { get }
    static var sql: String { get }
}

/// A run of a ``PreparedText`` with its values.
struct Prepared<Text: PreparedText>: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static var name: String { "stratus_" + Text.name }
    static var sql: String { Text.sql }

    let bindings: PostgresBindings

    init(_ text: Text.Type, _ bindings: PostgresBindings) {
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresConnection {
    /// Every row of a prepared statement.
    func rows<Text: PreparedText>(_ text: Text.Type, _ bindings: PostgresBindings, logger: Logger) async throws -> [PostgresRow] {
        try await traced(Text.sql) {
            var rows: [PostgresRow] = []
            for try await row in try await execute(Prepared(text, bindings), logger: logger) { rows.append(row) }
            return rows
        }
    }

    /// Every row of a prepared statement, decoded as a tuple.
    func rows<Text: PreparedText, each Column: PostgresDecodable & Sendable>(
        _ text: Text.Type, _ bindings: PostgresBindings, as types: (repeat each Column).Type, logger: Logger
    ) async throws -> [(repeat each Column)] {
        try await rows(text, bindings, logger: logger).map { try $0.decode((repeat each Column).self) }
    }

    /// Runs a prepared statement, discarding any rows.
    func run<Text: PreparedText>(_ text: Text.Type, _ bindings: PostgresBindings, logger: Logger) async throws {
        try await traced(Text.sql) {
            for try await _ in try await execute(Prepared(text, bindings), logger: logger) {}
        }
    }
}
