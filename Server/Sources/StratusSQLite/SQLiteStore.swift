import Foundation
import GRDB
import Logging
import StratusModel
import StratusStore
import Synchronization

/// The embedded default store: one SQLite file in WAL mode, through GRDB.
///
/// Reads run concurrently on a pool of reader connections; writes go through one writer connection
/// and share commits (``GroupCommitWriter``).
///
/// ```swift
/// let store = try SQLiteStore(configuration: .init(path: "stratus-data/stratus.sqlite"))
/// let zones = try await store.zones(in: .publicDatabase("iCloud.com.example.App", .development))
/// ```
public final class SQLiteStore: Sendable {
    let pool: DatabasePool
    let configuration: Configuration
    let logger: Logger
    let writer: GroupCommitWriter
    let schemas: SchemaCache
    /// The change sequence (see ``ChangeSequence``): orders every change by commit.
    let sequence: ChangeSequence
    /// The indexes being built (SchemaTables in the store), changed only after commits.
    public let indexBuilds: IndexBuildRegistry
    /// Delivers store events, this process's and other processes' (SQLiteStore+Events).
    let events: SQLiteEventLog
    /// Reads and writes in progress, for ``statistics()``.
    let connectionUse = ConnectionUse()

    /// Opens (creating if needed) the store's file and brings its tables up to date.
    /// - Parameter logger: where background work reports trouble.
    /// - Throws: ``StorageError`` when the file cannot be opened or migrated.
    public init(configuration: Configuration, logger: Logger = Logger(label: "stratus.sqlite")) throws {
        self.configuration = configuration
        self.logger = logger
        var config = GRDB.Configuration()
        config.busyMode = .timeout(10)
        config.maximumReaderCount = configuration.maximumReaderCount
        let durability = configuration.durability
        config.prepareDatabase { db in
            try Self.prepare(db, durability: durability)
        }
        do {
            pool = try DatabasePool(path: configuration.path, configuration: config)
            try SQLiteMigrations.migrator.migrate(pool)
            sequence = ChangeSequence()
            indexBuilds = IndexBuildRegistry(try pool.read { db in try db.read(SchemaTables.allBuilds) })
            events = try SQLiteEventLog(path: configuration.path, logger: logger)
        } catch {
            throw StorageError.translating(error)
        }
        schemas = SchemaCache()
        let events = events
        writer = GroupCommitWriter(pool: pool, schemas: schemas, sequence: sequence) {
            Task { try? events.catchUp() }
        }
        keepCachesFresh()
    }

    /// Sets every connection up the same way, in one place.
    private static func prepare(_ db: Database, durability: Configuration.Durability) throws {
        // WAL is set by DatabasePool. NORMAL syncs the WAL only at checkpoints: a commit survives a killed
        // process (it is in the OS's cache) but not power loss; FULL syncs at every (group) commit.
        try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
        try db.execute(sql: "PRAGMA cache_size = -8000")
        // The writer checkpoints between group commits (WALCheckpoints), replacing this on its connection; this
        // automatic checkpoint on commit bounds the log (about 32 MB) for other processes' writes (the commands).
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 8000")
        try db.execute(sql: "PRAGMA temp_store = MEMORY")
        // The first latitude is an index key (a LOCATION's entry); the others are plain numbers.
        db.add(function: DatabaseFunction("stratus_distance", argumentCount: 4, pure: true) { values in
            guard let key = Data.fromDatabaseValue(values[0]), let lat1 = IndexKey(bytes: Array(key)).number,
                let lon1 = Double.fromDatabaseValue(values[1]),
                let lat2 = Double.fromDatabaseValue(values[2]), let lon2 = Double.fromDatabaseValue(values[3])
            else { return nil }
            return Location.distance(lat1, lon1, lat2, lon2)
        })
    }

    /// The next change sequence number. Called inside the writer's transaction only.
    func nextSequence() -> Int64 {
        sequence.next()
    }

    /// Runs a read-only closure on a reader connection, on the calling thread, each statement seeing the
    /// latest commit (SQLite's autocommit mode).
    ///
    /// Reads are short (index lookups) and in WAL mode never wait for the writer, and there are more
    /// reader connections than cooperative threads, so a read is plain CPU work like any other; running
    /// it here saves two thread hops per request over GRDB's asynchronous `read`. Skipping the read
    /// transaction saves four statements per read; use ``snapshot(_:)`` when several statements
    /// must see one state. `statement`, the SQL text when the read is one statement, names its span in a trace.
    func read<T: Sendable>(statement: @autoclosure () -> String? = nil, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await StoreSpans.sql("read", system: "sqlite", statement: statement()) {
            do {
                return try readOnCallingThread(body)
            } catch {
                throw StorageError.translating(error)
            }
        }
    }

    /// Synchronous so that GRDB's synchronous reads are the ones called.
    private func readOnCallingThread<T>(_ body: (Database) throws -> T) throws -> T {
        try connectionUse.holding { try pool.unsafeRead(body) }
    }

    /// Runs a closure in the next group commit.
    func write<T: Sendable>(_ body: @escaping @Sendable (WriteBatch) throws -> T) async throws -> T {
        try await StoreSpans.sql("group commit", system: "sqlite") {
            do {
                return try await connectionUse.call { connected in
                    connected()
                    return try await writer.write(body)
                }
            } catch {
                throw StorageError.translating(error)
            }
        }
    }

}

// GRDB and Foundation have types of these names too; inside this module the model's are meant.
typealias Record = StratusModel.Record
typealias SortDescriptor = StratusModel.SortDescriptor
typealias Comparator = StratusModel.Comparator
