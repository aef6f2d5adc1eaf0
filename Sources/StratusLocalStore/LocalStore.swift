import Foundation
import StratusKit

/// An app's local database of records, kept in sync with a Stratus database by a ``SyncEngine``: the records,
/// the changes waiting to be sent and the engine's state live in one SQLite file, written together, so an app
/// writes no store, no merge and no bookkeeping of its own.
///
/// ```swift
/// let store = try await LocalStore.open(file: folder.appendingPathComponent("notes.sqlite"),
///                                       database: container.privateCloudDatabase)   // syncs from now on
/// var note = Record(recordType: "Note", recordID: Record.ID(zoneID: Zone.ID(zoneName: "Notes")))
/// note["title"] = "Groceries"
/// try await store.saveZone(note.recordID.zoneID)
/// try await store.save(note)                               // kept at once, sent soon after
/// let open = try await store.records(ofType: "Note") { $0["done"] != true }
/// for await change in await store.changes() { reload(change.saved) }   // local edits and fetched ones
/// ```
///
/// A record edited here and changed on the server meanwhile is merged by ``ConflictResolver`` (by default the
/// fields edited here win, the server's other fields stay) and sent again; a record deleted on the server is
/// deleted here, edits and all.
public actor LocalStore {
    /// What changed in the store, for the UI to reload.
    public struct Change: Sendable {
        /// Who made the change.
        public enum Origin: Sendable, Hashable {
            /// The app, through ``LocalStore/save(_:)`` and ``LocalStore/delete(_:)``.
            case local
            /// The server: fetched changes, or the server's answer to a send.
            case server
        }

        public var origin: Origin
        public var saved: [Record.ID]
        public var deleted: [Record.ID]
        /// Saves the server refused for a reason merging does not fix (a permission, a constraint); the records
        /// stay here as the app left them.
        public var refused: [Record.ID: StratusError]
        /// What the server sent could not be written here (a full disk): the engine stopped syncing by itself, and
        /// its saved state still points before what was lost; open the store again once the cause is gone.
        public var writeFailure: LocalStoreError?
    }

    /// Merges a record edited here (`local`, with its ``Record/changedKeys``) with the server's newer version.
    public typealias ConflictResolver = @Sendable (_ local: Record, _ server: Record) -> Record

    /// The fields edited here win; the server's values stay for the others.
    public static let localEditsWin: ConflictResolver = { local, server in
        var merged = server
        for key in local.changedKeys { merged[key] = local.values[key] }
        return merged
    }

    /// The engine that syncs the store; run it (``SyncEngine/run()``) in the task the app syncs in.
    public nonisolated let engine: SyncEngine
    let file: SQLiteFile
    let resolveConflict: ConflictResolver
    /// The engine's delegate, which hands events to the store (the engine holds its delegate weakly).
    private let relay: EngineRelay
    var observers: [UUID: AsyncStream<Change>.Continuation] = [:]
    /// Numbers the unsent changes written to the file, in the order the app made them.
    var lastChangeNumber: Int64 = 0
    /// The engine's state as last written to the file (without the pending record changes).
    var keptState: Data?
    /// Zones being fetched again from the start in the current fetch.
    var refetching: Set<Zone.ID> = []
    /// Set when what the server sent could not be written: from then on the engine's state is not kept, so the
    /// file's state never passes what the file lacks.
    var writeFailed = false

    /// Opens the store in `file` (making it the first time) for a private or shared database, and hands the engine
    /// any change written here that its saved state did not hold yet (a crash between the two). The engine then
    /// syncs by itself, as a `CKSyncEngine` does.
    public static func open(
        file url: URL, database: Database, resolveConflict: @escaping ConflictResolver = LocalStore.localEditsWin
    ) async throws -> LocalStore {
        try await open(file: url, database: database, resolveConflict: resolveConflict, automaticallySync: true)
    }

    /// ``open(file:database:resolveConflict:)``; without `automaticallySync` the engine does not sync by itself: the
    /// app runs it (``SyncEngine/run()``) in a task of its choosing, or fetches and sends when it wants.
    public static func open(
        file url: URL, database: Database, resolveConflict: @escaping ConflictResolver = LocalStore.localEditsWin,
        automaticallySync: Bool
    ) async throws -> LocalStore {
        let store = try LocalStore(file: url, database: database, resolveConflict: resolveConflict)
        try await store.handUnsentChangesToEngine()
        if automaticallySync { await store.engine.startSyncing() }
        return store
    }

    private init(file url: URL, database: Database, resolveConflict: @escaping ConflictResolver) throws {
        let file = try SQLiteFile(path: url.path)
        try Self.prepare(file)
        var saved: Data?
        try file.query("SELECT state FROM engine WHERE id = 1") { saved = $0.isNull(0) ? nil : $0.blob(0) }
        keptState = saved
        let relay = EngineRelay()
        engine = try SyncEngine(SyncEngine.Configuration(
            database: database, stateSerialization: saved.map(SyncEngine.State.Serialization.init(data:)), delegate: relay,
            automaticallySync: false
        ))
        self.file = file
        self.resolveConflict = resolveConflict
        self.relay = relay
        relay.store = self
    }

    /// The file format's version, kept in SQLite's `user_version`: 0 is a new file or one of the first format
    /// (unsent record changes in the `unsent` table), 2 the current one.
    static let formatVersion: Int64 = 2

    /// One row per record: a record's row also says whether a change of it waits unsent (`unsent` is `save` or
    /// `delete`; `number` orders the changes as the app made them), so a save writes one row. A record deleted here
    /// and not sent yet keeps a row with no type and no body until the deletion is sent. Zones' unsent changes
    /// (`saveZone`, `deleteZone`) are rows of `unsent`.
    static let schema = """
        CREATE TABLE IF NOT EXISTS records (
            zone TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, unsent TEXT, number INTEGER,
            body BLOB NOT NULL,
            PRIMARY KEY (zone, owner, name)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS records_by_type ON records (type);
        CREATE TABLE IF NOT EXISTS unsent (
            zone TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, number INTEGER NOT NULL,
            PRIMARY KEY (zone, owner, name)
        ) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS engine (id INTEGER PRIMARY KEY CHECK (id = 1), state BLOB);
        """

    /// Makes a new file's tables, or brings a file of the first format to the current one in one transaction: its
    /// records gain the unsent mark, and the unsent record changes move onto the records' rows.
    static func prepare(_ file: SQLiteFile) throws {
        var version: Int64 = 0
        try file.query("PRAGMA user_version") { version = $0.integer(0) }
        guard version < formatVersion else { return }
        try file.transaction {
            var hasRecords = false
            try file.query("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'records'") { hasRecords = $0.integer(0) > 0 }
            if hasRecords {
                try file.execute("""
                    ALTER TABLE records ADD COLUMN unsent TEXT;
                    ALTER TABLE records ADD COLUMN number INTEGER;
                    UPDATE records SET unsent = 'save', number = (
                        SELECT u.number FROM unsent u
                        WHERE u.zone = records.zone AND u.owner = records.owner AND u.name = records.name AND u.kind = 'save'
                    );
                    UPDATE records SET unsent = NULL WHERE number IS NULL;
                    INSERT OR REPLACE INTO records (zone, owner, name, type, body, unsent, number)
                        SELECT zone, owner, name, '', X'', 'delete', number FROM unsent WHERE kind = 'delete';
                    DELETE FROM unsent WHERE kind IN ('save', 'delete');
                    """)
            }
            try file.execute(schema)
            try file.execute("PRAGMA user_version = \(formatVersion)")
        }
    }

    // MARK: - Changes for the UI

    /// Every change of the store from now on, until the stream is dropped.
    public func changes() -> AsyncStream<Change> {
        let (stream, continuation) = AsyncStream<Change>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { _ in Task { await self.stopObserving(id) } }
        return stream
    }

    private func stopObserving(_ id: UUID) {
        observers[id] = nil
    }

    func notify(
        _ origin: Change.Origin, saved: [Record.ID] = [], deleted: [Record.ID] = [], refused: [Record.ID: StratusError] = [:],
        writeFailure: LocalStoreError? = nil
    ) {
        guard !saved.isEmpty || !deleted.isEmpty || !refused.isEmpty || writeFailure != nil else { return }
        let change = Change(origin: origin, saved: saved, deleted: deleted, refused: refused, writeFailure: writeFailure)
        for observer in observers.values { observer.yield(change) }
    }
}

/// Hands the engine's calls to the store: the engine keeps its delegate weakly, and the store keeps this.
final class EngineRelay: SyncEngineDelegate, @unchecked Sendable {
    /// Set once, when the store is made, before the engine can call.
    weak var store: LocalStore?

    func handleEvent(_ event: SyncEngine.Event, syncEngine: SyncEngine) async {
        await store?.handle(event, from: syncEngine)
    }

    func nextRecordZoneChangeBatch(_ context: SyncEngine.SendChangesContext, syncEngine: SyncEngine) async -> SyncEngine.RecordZoneChangeBatch? {
        await store?.nextBatch(context)
    }
}
