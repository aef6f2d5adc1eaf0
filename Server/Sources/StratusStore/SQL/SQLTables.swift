/// A backend's tables reached by statements it renders in its ``SQLDialect``: what the store's plain tables
/// (containers, accounts, sessions, roles, server keys, subscriptions, transfers) are written once over.
///
/// Tables with rules of their own (records, zones, shares) are reached through their own primitives instead,
/// which keep each backend's locking and group commit.
///
/// ```swift
/// let rows = try await store.rows("SELECT id FROM containers WHERE id = \(.text(containerID))")
/// ```
public protocol SQLTables: Sendable {
    /// The rows of one statement, reading the latest commit.
    func rows(_ statement: SQLFragment) async throws -> [SQLRow]

    /// Runs `statements` in order in one transaction and returns each statement's rows. `decide` sees those
    /// rows before the commit and returns the store events to store with it (delivered to every node once it
    /// commits); when it throws, nothing is kept and its ``StorageError`` reaches the caller. A statement that fails rolls the transaction back and throws.
    @discardableResult
    func transaction(
        _ statements: [SQLFragment], then decide: @escaping @Sendable ([[SQLRow]]) throws -> [StoreEvent]
    ) async throws -> [[SQLRow]]

    /// Runs `body` in one transaction that it drives statement by statement, so that what it reads decides what it
    /// writes next; commits when `body` returns, with the events it emitted, and returns its value. When `body`
    /// throws, or when any statement failed (even one whose error `body` caught), nothing is kept and the error
    /// reaches the caller.
    ///
    /// `body` must do nothing but run statements: SQLite's single writer waits for it, and a store call made
    /// from inside it would wait for itself.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T

    /// Runs `statements` in order, each of which may commit on its own, and returns each one's rows: for
    /// bookkeeping that needs no atomicity and emits no events (counters, sweeps, replay guards), so that
    /// PostgreSQL holds no transaction across round trips.
    @discardableResult
    func execute(_ statements: [SQLFragment]) async throws -> [[SQLRow]]
}

extension SQLTables {
    /// Runs `statements` in one transaction that stores `events` with it.
    @discardableResult
    public func transaction(_ statements: [SQLFragment], emitting events: [StoreEvent] = []) async throws -> [[SQLRow]] {
        try await transaction(statements, then: { _ in events })
    }
}

/// One transaction as ``SQLTables/transaction(_:)-(any SQLTransaction)`` hands it to its body.
public protocol SQLTransaction: Sendable {
    /// The rows of one statement, seeing what the transaction wrote so far.
    @discardableResult
    func rows(_ statement: SQLFragment) async throws -> [SQLRow]
    /// Stores `event` with the transaction, delivered to every node once it commits.
    func emit(_ event: StoreEvent)
}
