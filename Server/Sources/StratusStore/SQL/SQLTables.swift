import StratusModel

/// A backend's tables reached by statements it renders in its ``SQLDialect``: what the store writes its tables
/// once over (zones, shares, record lookups, containers, accounts, sessions, roles, server keys, subscriptions,
/// transfers, ...).
///
/// The record write path is reached through its own primitives instead (each backend's snapshot loader and
/// plan applier), which keep SQLite's group commit and PostgreSQL's row locks.
///
/// ```swift
/// let rows = try await store.rows("SELECT id FROM containers WHERE id = \(.text(containerID))")
/// ```
public protocol SQLTables: SQLReading {
    /// The rows of one statement, reading the latest commit.
    func rows(_ statement: SQLFragment) async throws -> [SQLRow]

    /// Whether statements run in this process (SQLite), where several small ones cost less than one that combines
    /// them; else each is a round trip to a server (PostgreSQL), and hot reads combine them.
    var statementsRunInProcess: Bool { get }

    /// How this backend writes statements, for those the store builds with a dialect's choices in mind (query pages).
    var sqlDialect: any SQLDialect { get }

    /// Whether changes commit in the order of their positions (one writer at a time), so that every committed
    /// position is settled and ``SQLPhrase/settledBound`` holds nothing back.
    var commitsInPositionOrder: Bool { get }

    /// Takes `positions` change positions and runs the statements `make` writes with the first of them, in order,
    /// in one transaction, and returns each statement's rows. `decide` sees those rows before the commit and
    /// returns the store events to store with it (delivered to every node once it commits); when it throws,
    /// nothing is kept and its ``StorageError`` reaches the caller. A statement that fails rolls the transaction
    /// back and throws.
    ///
    /// One step, where a body (``transaction(_:)-(any SQLTransaction)``) would take a round trip per statement.
    @discardableResult
    func transaction(
        taking positions: Int64, _ make: @escaping @Sendable (_ firstPosition: Int64) -> [SQLFragment],
        then decide: @escaping @Sendable ([[SQLRow]]) throws -> [StoreEvent]
    ) async throws -> [[SQLRow]]

    /// Runs `body` in one transaction that it drives statement by statement, so that what it reads decides what it
    /// writes next; commits when `body` returns, with the events it emitted, and returns its value. When `body`
    /// throws, or when any statement failed (even one whose error `body` caught), nothing is kept and the error
    /// reaches the caller.
    ///
    /// `body` must do nothing but run statements: SQLite's single writer waits for it, and a store call made
    /// from inside it would wait for itself.
    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T

    /// Runs `body` in one read transaction: every statement it runs sees the same committed state.
    func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLReading) async throws -> T) async throws -> T

    /// Runs `body`, a read of change positions below ``SQLPhrase/settledBound``, until it reports that no committed
    /// change it would return is still unsettled, or a short wait has passed; then returns its last result.
    ///
    /// Where one writer runs at a time every committed position is settled and `body` runs once (its statements
    /// may each see a later commit: read a feed's figures before its rows). Where writers
    /// commit out of order (PostgreSQL), a change settles once every transaction that began writing before it has
    /// ended, usually within milliseconds: waiting for that gives read-your-writes (a client that saved, then
    /// syncs, sees its save); after the wait the feed answers what is settled, and the rest comes with the next sync.
    func readSettled<T: Sendable>(
        _ body: @escaping @Sendable (any SQLReading) async throws -> (value: T, unsettled: Bool)
    ) async throws -> T

    /// Runs `statements` in order, each of which may commit on its own, and returns each one's rows: for
    /// bookkeeping that needs no atomicity and emits no events (counters, sweeps, replay guards), so that
    /// PostgreSQL holds no transaction across round trips.
    @discardableResult
    func execute(_ statements: [SQLFragment]) async throws -> [[SQLRow]]
}

extension SQLTables {
    /// Runs `statements` in order in one transaction, like ``transaction(taking:_:then:)`` without positions.
    @discardableResult
    public func transaction(
        _ statements: [SQLFragment], then decide: @escaping @Sendable ([[SQLRow]]) throws -> [StoreEvent]
    ) async throws -> [[SQLRow]] {
        try await transaction(taking: 0, { _ in statements }, then: decide)
    }

    /// Runs `statements` in one transaction that stores `events` with it.
    @discardableResult
    public func transaction(_ statements: [SQLFragment], emitting events: [StoreEvent] = []) async throws -> [[SQLRow]] {
        try await transaction(statements, then: { _ in events })
    }
}

/// Statements run one by one, in a read or in a transaction, each returning its rows.
public protocol SQLReading: Sendable {
    /// The rows of one statement. In a transaction, it sees what the transaction wrote so far.
    /// - Throws: ``StorageError``, as the backend translates its driver's errors.
    @discardableResult
    func rows(_ statement: SQLFragment) async throws -> [SQLRow]

    /// The value of `read`, whose statements run in order (a store runs them on one connection, in one step).
    func read<Value>(_ read: SQLRead<Value>) async throws -> Value
}

/// One transaction as ``SQLTables/transaction(_:)-(any SQLTransaction)`` hands it to its body.
public protocol SQLTransaction: SQLReading {
    /// Stores `event` with the transaction, delivered to every node once it commits.
    func emit(_ event: StoreEvent)

    /// Takes `count` consecutive change positions (which order records, zones and participants in change
    /// feeds) and returns the first.
    func positions(_ count: Int64) async throws -> Int64

    /// Runs `action` once the transaction has committed (never when it rolls back or runs again): for what a
    /// store keeps in memory, such as the index builds in progress.
    func afterCommit(_ action: @escaping @Sendable () -> Void) async throws

    /// The working schema of a container environment: as this transaction left it, else as stored.
    func schema(_ key: SchemaKey) async throws -> Schema

    /// Replaces the working schema; stored with the commit when it differs, and announced to every node.
    func setSchema(_ schema: Schema, for key: SchemaKey) async throws

    /// Adds index entries; one already there is left as it is.
    func insertIndexEntries(_ rows: [IndexEntryRow]) async throws

    /// Applies a plan the record engine made for a zone (rows, index entries, references, assets, shares), with
    /// the backend's own statements for the record write path. Its positions must have been taken
    /// (``positions(_:)``), from the first the plan was made with.
    func applyPlan(_ plan: WritePlan, in zone: ZoneRow, caller: Caller) async throws
}

/// A record's index entry with where it goes in the `field_index` table.
public struct IndexEntryRow: Sendable {
    public var entry: IndexEntry
    public var zoneID: Int64
    public var recordType: String
    public var recordID: Int64

    public init(entry: IndexEntry, zoneID: Int64, recordType: String, recordID: Int64) {
        self.entry = entry
        self.zoneID = zoneID
        self.recordType = recordType
        self.recordID = recordID
    }
}

extension SQLTransaction {
    /// One change position.
    public func position() async throws -> Int64 {
        try await positions(1)
    }

    /// Runs `body` so that when it throws, the statements it ran are undone and the transaction goes on; a
    /// failed statement still ends the whole transaction (its error is what this throws). Events `body` emitted
    /// are kept either way: emit only after the last statement that may refuse.
    public func savepoint<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        try await rows("SAVEPOINT step")
        do {
            let value = try await body()
            try await rows("RELEASE SAVEPOINT step")
            return value
        } catch {
            // After a failed statement these fail too, with that statement's error.
            try await rows("ROLLBACK TO SAVEPOINT step")
            try await rows("RELEASE SAVEPOINT step")
            throw error
        }
    }
}

/// A read written once: a statement and how its rows become a value, or several statements where each depends on
/// what the ones before read (``then(_:)``). An asynchronous ``SQLReading`` runs it, and so does a backend's
/// synchronous connection (SQLite's writer, while it loads a record snapshot); a store runs all of a read's
/// statements on one connection, in one step.
///
/// ```swift
/// let zonesThenRecords = ZoneTables.liveZones(in: database).then { zones in recordsRead(in: zones) }
/// ```
public struct SQLRead<Value: Sendable>: Sendable {
    fileprivate enum Step: Sendable {
        case value(Value)
        case later(@Sendable () throws -> SQLRead<Value>)
        case statement(SQLFragment, @Sendable ([SQLRow]) throws -> SQLRead<Value>)
    }

    fileprivate let step: Step

    fileprivate init(step: Step) {
        self.step = step
    }

    /// The rows of `statement`, made into a value by `decode`.
    public init(_ statement: SQLFragment, decode: @escaping @Sendable ([SQLRow]) throws -> Value) {
        step = .statement(statement) { rows in SQLRead(value: try decode(rows)) }
    }

    /// A read of no statement, whose value is `value`.
    public init(value: Value) {
        step = .value(value)
    }

    /// This read, then the read `next` makes of its value, as one read.
    public func then<Next>(_ next: @escaping @Sendable (Value) throws -> SQLRead<Next>) -> SQLRead<Next> {
        switch step {
        case .value(let value): SQLRead<Next>(step: .later { try next(value) })
        case .later(let make): SQLRead<Next>(step: .later { try make().then(next) })
        case .statement(let statement, let decode): SQLRead<Next>(step: .statement(statement) { rows in try decode(rows).then(next) })
        }
    }

    /// This read, its value made into another by `transform`.
    public func map<Next>(_ transform: @escaping @Sendable (Value) throws -> Next) -> SQLRead<Next> {
        then { value in SQLRead<Next>(value: try transform(value)) }
    }

    /// Runs the read with `rows` running each statement, one after another.
    public func run(_ rows: (SQLFragment) throws -> [SQLRow]) throws -> Value {
        var current = self
        while true {
            switch current.step {
            case .value(let value): return value
            case .later(let make): current = try make()
            case .statement(let statement, let decode): current = try decode(try rows(statement))
            }
        }
    }

    /// Runs the read with `rows` running each statement, one after another.
    public func run(_ rows: (SQLFragment) async throws -> [SQLRow]) async throws -> Value {
        var current = self
        while true {
            switch current.step {
            case .value(let value): return value
            case .later(let make): current = try make()
            case .statement(let statement, let decode): current = try decode(try await rows(statement))
            }
        }
    }
}

extension SQLReading {
    /// Runs `read`'s statements one by one through ``rows(_:)``.
    public func read<Value>(_ read: SQLRead<Value>) async throws -> Value {
        try await read.run { statement in try await rows(statement) }
    }
}
