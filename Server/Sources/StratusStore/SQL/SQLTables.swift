/// A backend's tables reached by statements it renders in its ``SQLDialect``: what the store's plain tables (containers,
/// accounts, sessions, sign-in failures, secrets) are written once over.
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

    /// Runs `statements` in order in one transaction, then stores `events` with it for every node (they are
    /// delivered once it commits), and returns each statement's rows. A statement that fails rolls back the
    /// transaction and throws.
    ///
    /// `check` sees the rows after the statements ran and before the commit; when it throws, nothing is kept.
    @discardableResult
    func transaction(
        _ statements: [SQLFragment], emitting events: [StoreEvent], check: @escaping @Sendable ([[SQLRow]]) throws -> Void
    ) async throws -> [[SQLRow]]

    /// Runs `statements` in order, each of which may commit on its own: for bookkeeping that needs no atomicity
    /// and emits no events (counters, sweeps), so that PostgreSQL holds no transaction across round trips.
    func execute(_ statements: [SQLFragment]) async throws
}

extension SQLTables {
    /// Runs `statements` in one transaction (``transaction(_:emitting:check:)``) with nothing to check.
    @discardableResult
    public func transaction(_ statements: [SQLFragment], emitting events: [StoreEvent] = []) async throws -> [[SQLRow]] {
        try await transaction(statements, emitting: events, check: { _ in })
    }
}
