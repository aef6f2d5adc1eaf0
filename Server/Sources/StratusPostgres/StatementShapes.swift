import Logging
import PostgresNIO
import Synchronization

/// Prepared statements for SQL built at run time, such as a query's page statement or a statement the store
/// writes once (``SQLTables``): one per distinct text, up to 256 texts for the life of the process; past that,
/// statements run unprepared.
///
/// postgres-nio names prepared statements by type, so each text gets a slot among 256 types of
/// ``ShapeText``, and keeps it: a connection that prepared a slot's statement may run it again at any time.
/// A query's text depends on its shape (record type, fields, comparators, sorts, number of zones), never on
/// its values, so an app's queries take a few dozen slots at most; the store's own statements about a
/// hundred. A slot is kept for a text and the types of
/// its values together: PostgreSQL fixes a prepared statement's parameter types when it prepares it.
final class StatementShapes: Sendable {
    static let shared = StatementShapes(capacity: 256)

    /// The most texts given a slot; at most the number of ``ShapeText`` types (256).
    let capacity: Int

    init(capacity: Int) {
        self.capacity = min(capacity, 256)
    }

    private let slots = Mutex<(byShape: [String: Int], texts: [String])>(([:], []))

    /// The text held by a slot.
    func sql(ofSlot slot: Int) -> String {
        slots.withLock { $0.texts[slot] }
    }

    /// The slot of `sql` with values of `types`, taken now if it has none and one is free.
    func slot(for sql: String, types: [String]) -> Int? {
        let shape = types.joined(separator: ",") + "\n" + sql
        return slots.withLock { slots in
            if let slot = slots.byShape[shape] { return slot }
            guard slots.texts.count < capacity else { return nil }
            slots.texts.append(sql)
            slots.byShape[shape] = slots.texts.count - 1
            return slots.texts.count - 1
        }
    }

    /// The statement type of each slot: ``ShapeText`` over every pair of ``ShapeDigit``s. Never changed after it is
    /// made (metatypes of a non-`Sendable` protocol are not `Sendable` by themselves).
    nonisolated(unsafe) fileprivate static let types: [any PreparedText.Type] = {
        let digits: [any ShapeDigit.Type] = [
            D0.self, D1.self, D2.self, D3.self, D4.self, D5.self, D6.self, D7.self,
            D8.self, D9.self, D10.self, D11.self, D12.self, D13.self, D14.self, D15.self,
        ]
        func pair<High: ShapeDigit, Low: ShapeDigit>(_ high: High.Type, _ low: Low.Type) -> any PreparedText.Type { ShapeText<High, Low>.self }
        return digits.flatMap { high in digits.map { low in pair(high, low) } }
    }()
}

extension PostgresConnection {
    /// Every row of `query`, whose values have the Swift types `types`, prepared when it has (or can take) a slot
    /// among the ``StatementShapes``.
    func rows(preparing query: PostgresQuery, types: [String], logger: Logger) async throws -> [PostgresRow] {
        guard let slot = StatementShapes.shared.slot(for: query.sql, types: types) else {
            return try await traced(query.sql) {
                var rows: [PostgresRow] = []
                for try await row in try await self.query(query, logger: logger) { rows.append(row) }
                return rows
            }
        }
        return try await rows(StatementShapes.types[slot], query.binds, logger: logger)
    }
}

/// One of the sixteen digits that number a ``ShapeText``.
protocol ShapeDigit {
    static var value: Int { get }
}

private enum D0: ShapeDigit { static let value = 0 }
private enum D1: ShapeDigit { static let value = 1 }
private enum D2: ShapeDigit { static let value = 2 }
private enum D3: ShapeDigit { static let value = 3 }
private enum D4: ShapeDigit { static let value = 4 }
private enum D5: ShapeDigit { static let value = 5 }
private enum D6: ShapeDigit { static let value = 6 }
private enum D7: ShapeDigit { static let value = 7 }
private enum D8: ShapeDigit { static let value = 8 }
private enum D9: ShapeDigit { static let value = 9 }
private enum D10: ShapeDigit { static let value = 10 }
private enum D11: ShapeDigit { static let value = 11 }
private enum D12: ShapeDigit { static let value = 12 }
private enum D13: ShapeDigit { static let value = 13 }
private enum D14: ShapeDigit { static let value = 14 }
private enum D15: ShapeDigit { static let value = 15 }

/// The statement of slot `High * 16 + Low` of the ``StatementShapes``.
private enum ShapeText<High: ShapeDigit, Low: ShapeDigit>: PreparedText {
    static var slot: Int { High.value * 16 + Low.value }
    static var name: String { "shape_\(slot)" }
    static var sql: String { StatementShapes.shared.sql(ofSlot: slot) }
}
