import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import StratusModel
import StratusStore
import Synchronization

/// The store for apps that outgrow one machine: PostgreSQL, through a pool of postgres-nio connections.
///
/// Several servers (nodes) may share one database: writers never wait on a shared counter row (positions
/// come from ``ChangePosition``), and every node learns of the others' changes through the store events
/// (`NOTIFY stratus_events`, then a read of the settled events).
///
/// ```swift
/// let store = try await PostgresStore.connect(configuration: .init(url: "postgres://stratus:secret@db:5432/stratus"))
/// let zones = try await store.zones(in: .publicDatabase("iCloud.com.example.App", .development))
/// await store.close()
/// ```
public final class PostgresStore: Sendable {
    let client: PostgresClient
    public let configuration: Configuration
    let logger: Logger
    /// Added to transaction ids in change positions (see ``ChangePosition``); fixed while the store is open.
    let positionOffset: Int64
    /// Delivers store events, this node's and other nodes' (PostgresStore+Events).
    let events: PostgresEventLog
    /// The committed schemas, forgotten when any node changes one.
    let schemas = PostgresSchemaCache()
    /// The indexes being built (SchemaTables in the store), refreshed by store events.
    public let indexBuilds: IndexBuildRegistry
    /// Database calls holding or waiting for a pooled connection, for ``statistics()``.
    let connectionUse = ConnectionUse()
    /// Whether the database can be reached; while it cannot, calls fail at once.
    let reachability: Reachability
    /// Set by ``close()``: calls made afterwards (work still running while a server stops) fail at once.
    private let closed = Atomic<Bool>(false)
    private let clientTask: Task<Void, Never>

    private init(
        client: PostgresClient, clientTask: Task<Void, Never>, configuration: Configuration, logger: Logger, positionOffset: Int64,
        events: PostgresEventLog, reachability: Reachability, indexBuilds: Set<String>
    ) {
        self.reachability = reachability
        self.indexBuilds = IndexBuildRegistry(indexBuilds)
        self.client = client
        self.clientTask = clientTask
        self.configuration = configuration
        self.logger = logger
        self.positionOffset = positionOffset
        self.events = events
        keepCachesFresh()
    }

    /// Connects, and creates or brings the tables up to date.
    /// - Throws: ``StorageError/Code/unavailable`` when the database cannot be reached;
    ///   ``StorageError/Code/internalFailure`` when it was migrated by a newer version, or refuses the user.
    public static func connect(configuration: Configuration, logger: Logger = Logger(label: "stratus.postgres")) async throws -> PostgresStore {
        // The pool reports each failed connection attempt at `info`; while the database is down that is one line
        // per retry, so its background messages start at `warning`.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .warning)
        let client = PostgresClient(
            configuration: configuration.clientConfiguration(), eventLoopGroup: SpreadEventLoopGroup(), backgroundLogger: poolLogger
        )
        let clientTask = Task { await client.run() }
        do {
            let applied = try await withConnectionDeadline(configuration.connectionWait) { started in
                try await PostgresMigrations.migrate(client, logger: logger, started: started)
            }
            if !applied.isEmpty {
                logger.info("database migrated", metadata: ["stratus.versions": "\(applied)", "stratus.database": "\(configuration.redactedDescription)"])
            }
            let offset = try await Self.readPositionOffset(client, logger: logger)
            let reachability = Reachability(configuration: configuration, logger: logger)
            let events = try await PostgresEventLog(
                client: client, logger: logger, positionOffset: offset, connectionWait: configuration.connectionWait,
                pollInterval: configuration.eventPollInterval, reachability: reachability
            )
            let building = try await withConnectionDeadline(configuration.connectionWait) { started in
                try await client.withConnection { connection in
                    try started()
                    return try await PostgresReading(connection: connection, logger: logger, dialect: PostgresDialect()).read(SchemaTables.allBuilds)
                }
            }
            return PostgresStore(
                client: client, clientTask: clientTask, configuration: configuration, logger: logger, positionOffset: offset, events: events,
                reachability: reachability, indexBuilds: building
            )
        } catch {
            clientTask.cancel()
            await clientTask.value
            let translated = StorageError.translating(error)
            // The pool says only that it got no connection; one direct try tells why, when the server refused.
            if translated.code == .unavailable, let refusal = await refusal(of: configuration, logger: logger) { throw refusal }
            throw translated
        }
    }

    /// The server's refusal of one direct connection (a wrong password, a missing database), if it refuses.
    private static func refusal(of configuration: Configuration, logger: Logger) async -> StorageError? {
        do {
            let connection = try await PostgresConnection.connect(configuration: try configuration.connectionConfiguration(), id: 0, logger: logger)
            try? await connection.close()
            return nil
        } catch {
            let translated = StorageError.translating(error)
            return translated.code == .unavailable ? nil : translated
        }
    }

    /// Closes every connection. The store must not be used afterwards.
    public func close() async {
        closed.store(true, ordering: .releasing)
        reachability.stop()
        clientTask.cancel()
        await clientTask.value
    }

    private static func readPositionOffset(_ client: PostgresClient, logger: Logger) async throws -> Int64 {
        let rows = try await client.query("SELECT convert_from(value, 'UTF8') FROM meta WHERE key = 'position_offset'", logger: logger)
        for try await text in rows.decode(String.self) {
            guard let offset = Int64(text), offset >= 0 else {
                throw StorageError(.internalFailure, "the database's position_offset is not a number: \(text)")
            }
            return offset
        }
        return 0
    }

    /// Runs reads outside a transaction: each statement sees the latest commit.
    /// In a trace, its span covers the wait for a connection and its statements' spans.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try refuseWhenClosed()
        return try await StoreSpans.sql("connection", system: "postgresql") {
            do {
                return try await connectionUse.call { connected in
                    try await Self.withConnectionDeadline(configuration.connectionWait, reachability: reachability) { started in
                        try await self.client.withConnection { connection in
                            try started()
                            connected()
                            return try await body(connection)
                        }
                    }
                }
            } catch {
                throw translatingNoticingOutage(error)
            }
        }
    }

    /// The store's error for `error`; when it suggests the database is down, the store checks.
    func translatingNoticingOutage(_ error: any Error) -> StorageError {
        let translated = StorageError.translating(error)
        if translated.suggestsUnreachable { reachability.suspect() }
        return translated
    }

    /// Throws ``StorageError/Code/unavailable`` once the store is closed.
    private func refuseWhenClosed() throws {
        if closed.load(ordering: .acquiring) { throw StorageError(.unavailable, "the server is shutting down") }
    }

    /// How long a change feed waits for changes already committed but not yet settled (see ``ChangePosition``).
    static let settleWait = Duration.seconds(2)

    /// Runs a read of settled changes until it reports that no committed change it would return is still
    /// unsettled, or ``settleWait`` has passed; then returns its last result.
    ///
    /// A change is settled once every transaction that began writing before it has ended: usually within
    /// milliseconds. Waiting for that gives read-your-writes (a client that saved, then syncs, sees its save);
    /// after the wait the feed answers what is settled, and the rest comes with the next sync.
    func readSettled<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> (value: T, unsettled: Bool)) async throws -> T {
        try await read { connection in try await self.untilSettled(wait: Self.settleWait, connection: connection, body) }
    }

    /// Runs `body` on `connection` until it reports nothing unsettled or `wait` has passed; then returns its last
    /// result. Giving up after a wait is logged with the transaction that held settling back.
    func untilSettled<T: Sendable>(
        wait: Duration, connection: PostgresConnection, _ body: @Sendable (PostgresConnection) async throws -> (value: T, unsettled: Bool)
    ) async throws -> T {
        let deadline = ContinuousClock.now + wait
        var pause = Duration.milliseconds(1)
        while true {
            let (value, unsettled) = try await body(connection)
            if !unsettled { return value }
            if ContinuousClock.now + pause > deadline {
                if wait > .zero { await logUnsettled(connection: connection) }
                return value
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(50))
        }
    }

    /// Says which open transaction of this database held a change feed's settling back past ``settleWait``.
    private func logUnsettled(connection: PostgresConnection) async {
        let holder = try? await connection.rows(
            """
            SELECT pid, COALESCE(application_name, ''), COALESCE(state, ''),
                COALESCE(EXTRACT(EPOCH FROM now() - xact_start)::float8, 0), left(COALESCE(query, ''), 160)
            FROM pg_stat_activity
            WHERE datname = current_database() AND backend_xid IS NOT NULL AND pid <> pg_backend_pid()
            ORDER BY backend_xid::text::bigint LIMIT 1
            """,
            as: (Int32, String, String, Double, String).self, logger: logger
        ).first
        var metadata: Logger.Metadata = [:]
        if let (pid, application, state, age, statement) = holder {
            metadata = [
                "postgres.pid": "\(pid)", "postgres.application": "\(application)", "postgres.state": "\(state)",
                "postgres.transaction_seconds": "\(String(format: "%.1f", age))", "postgres.statement": "\(statement)",
            ]
        }
        logger.warning(
            "a change feed answered before every committed change had settled: a transaction begun before them is still open; the rest comes with the next sync",
            metadata: metadata
        )
    }

    /// Runs `body` in a transaction with the write's positions and events, and commits.
    ///
    /// The store events `body` emits are stored with the change and announced (`NOTIFY`) at commit.
    ///
    /// In a trace, its span covers the wait for a connection, the transaction's statements and its commit.
    func write<T: Sendable>(_ body: @escaping @Sendable (PostgresWrite) async throws -> T) async throws -> T {
        try refuseWhenClosed()
        return try await StoreSpans.sql("transaction", system: "postgresql") { try await commit(body) }
    }

    private func commit<T: Sendable>(_ body: @escaping @Sendable (PostgresWrite) async throws -> T) async throws -> T {
        do {
            let (value, emitted) = try await connectionUse.call { connected in
                try await Self.withConnectionDeadline(configuration.connectionWait, reachability: reachability) { started in
                    try await self.client.withTransaction(logger: self.logger) { connection in
                        try started()
                        connected()
                        let write = PostgresWrite(connection: connection, logger: self.logger, positionOffset: self.positionOffset)
                        let value = try await body(write)
                        try await write.storeSchemas(cache: self.schemas)
                        try await write.storeEvents()
                        return (value, !write.events.isEmpty)
                    }
                }
            }
            // This node's observers learn of its own events before the caller goes on.
            if emitted { try? await events.catchUp() }
            return value
        } catch {
            throw translatingNoticingOutage(error)
        }
    }

    /// Runs `body`'s statements outside a transaction, each committing on its own: for writes that take no
    /// positions and emit no store events (leases, housekeeping), where each statement stands alone.
    ///
    /// Such a statement holds a transaction id only while PostgreSQL runs it, never while the server is between
    /// round trips, so a busy server never holds back the change feeds' settled bound with it (``ChangePosition``).
    func writeUnpositioned<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await read(body)
    }

    /// The most times a write is tried when a concurrent writer got in its way.
    static let writeAttempts = 12

    /// Runs `body` like ``write(_:)``, and runs it again, after a short random pause, when a concurrent writer
    /// got in its way: a row it meant to insert was inserted first (a unique index), a deadlock, or a row it read
    /// without a lock changed before it could lock it (``ConcurrentChange``).
    ///
    /// The record engine decides from a snapshot it loads in the transaction. Its rows are locked as they are
    /// loaded (the batch's own records `FOR UPDATE`, the rest `FOR SHARE`), rows found by a recursive walk are
    /// locked and checked afterwards, unique values are guarded by advisory locks, and the schema is changed
    /// only at the version the plan was made with, so that each write decides as if it ran alone, while writers
    /// of different records never wait for each other.
    func writeRetryingConflicts<T: Sendable>(_ body: @escaping @Sendable (PostgresWrite) async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await write(body)
            } catch let error as StorageError where error.isWriteConflict && attempt < Self.writeAttempts {
                try await Task.sleep(for: .microseconds(Int.random(in: 50...(200 << min(attempt, 7)))))
                attempt += 1
            }
        }
    }

    /// Runs `operation`, giving up with ``StorageError/Code/unavailable`` when it has not got a connection
    /// (it calls `started`) within `wait`: the database is down or every connection is busy. Once started, the
    /// operation runs to its end. While `reachability` says the database is unreachable, fails at once.
    static func withConnectionDeadline<T: Sendable>(
        _ wait: Duration, reachability: Reachability? = nil,
        _ operation: @escaping @Sendable (_ started: @escaping @Sendable () throws -> Void) async throws -> T
    ) async throws -> T {
        try await ConnectionDeadlines.shared.run(wait: wait, reachability: reachability, operation)
    }
}

extension PostgresStore: Service {
    /// The store's background work until the service group shuts down, then closes the store: follows other
    /// nodes' events (a listening connection, and a slow poll; this node's own are delivered as it commits them,
    /// and every security check catches up first); every quarter second, advances pending index builds; every five seconds, refreshes the planner's statistics of tables
    /// that grew fast (PostgresStore+Statistics); every minute, prunes old store events. Each runs on the one
    /// node that holds its lease; a failure is logged and tried again at the next tick.
    public func run() async throws {
        let housekeeping = StoreHousekeeping(store: self, chores: [
            .init("index build", every: .zero, lease: Lease(name: "index-builds"), when: { !self.indexBuilds.isEmpty }) {
                while try await self.continueIndexBuild() {}
            },
            .init("refreshing statistics", every: .seconds(5), lease: Lease(name: "statistics")) { try await self.refreshStatistics() },
            .init("pruning store events", every: .seconds(60), lease: Lease(name: "store-event-pruning")) {
                try await self.pruneEvents(now: Int64(Date().timeIntervalSince1970 * 1000))
            },
        ]) { chore, error in
            self.logger.warning("\(chore) failed", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await housekeeping.run() }
                group.addTask { await self.events.run() }
            }
        }
        await close()
    }
}

// Foundation has a type of this name too; inside this module the model's is meant.
typealias Record = StratusModel.Record
