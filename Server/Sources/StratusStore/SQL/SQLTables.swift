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
