import Foundation

/// Keeps a database in sync with the app's own store, like `CKSyncEngine`: the app says what changed locally,
/// and the engine sends it, fetches what changed on the server, persists its own state through the app, retries
/// when the network or the server asks it to, and hands conflicts back.
///
/// ```swift
/// let engine = try SyncEngine(SyncEngine.Configuration(database: container.privateCloudDatabase,
///                                                      stateSerialization: savedState, delegate: myStore))
/// await engine.add(pendingRecordZoneChanges: [.saveRecord(note.recordID)])   // sent soon after
/// ```
///
/// As `CKSyncEngine` does, an engine with ``Configuration/automaticallySync`` (the default) starts syncing by itself
/// once it exists, until ``stop()``. An app that wants to choose the task it syncs in sets it to `false` and calls
/// ``run()`` there (`Task { await engine.run() }`, SwiftUI's `.task { }`): cancelling that task ends it. While syncing
/// by itself, the engine fetches at start, when the server's event stream says the database changed, and when the
/// stream reconnects after a gap, and sends soon after changes are added; ``fetchChanges()`` and ``sendChanges()``
/// do either at once, syncing by itself or not. One operation runs at a time; events reach the delegate one at a
/// time, in order.
public actor SyncEngine {
    /// How an engine is set up (`CKSyncEngine.Configuration`).
    public struct Configuration: Sendable {
        /// The private or the shared database of a signed-in container.
        public var database: Database
        /// What the last engine's ``Event/stateUpdate(_:)`` gave; `nil` on the first launch.
        public var stateSerialization: State.Serialization?
        /// Kept weakly by the engine, as `CKSyncEngine` keeps its delegate.
        public var delegate: any SyncEngineDelegate
        /// Whether the engine syncs by itself from the moment it exists (as ``run()`` does, in a task of its own);
        /// `true` by default, as in `CKSyncEngine`. Without it, the engine does nothing until ``run()``,
        /// ``fetchChanges()`` or ``sendChanges()``.
        public var automaticallySync: Bool
        /// The name of the database subscription the engine saves to hear of changes.
        public var subscriptionID: String
        /// Whether a record change the server refused stays pending for the next send, as `CKSyncEngine` keeps it
        /// (StratusCloudKit's engine); this engine hands it to the app and forgets it.
        package var keepsFailedChangesPending = false
        /// Whether the first run for a signed-in user is reported as an account change with no previous user, as
        /// `CKSyncEngine` reports a sign-in (StratusCloudKit's engine).
        package var reportsFirstSignIn = false
        /// Which zones a fetch the engine starts by itself covers, those to fetch first, and the others left for a
        /// later fetch (`CKSyncEngineDelegate.nextFetchChangesOptions`); every changed zone when `nil`.
        /// Whether the app has changes it does not track as pending ones (`CKSyncEngine.State.hasPendingUntrackedChanges`):
        /// a send then asks the delegate for batches even when no change is pending.
        package var hasUntrackedChanges: (@Sendable () -> Bool)?
        package var scheduledFetchOptions: (@Sendable () async -> (included: @Sendable (Zone.ID) -> Bool, prioritized: [Zone.ID]))?

        /// An engine that syncs by itself (``automaticallySync``, settable afterwards, as in `CKSyncEngine`).
        public init(
            database: Database, stateSerialization: State.Serialization? = nil, delegate: any SyncEngineDelegate,
            subscriptionID: String = "stratus-sync-engine"
        ) {
            self.init(
                database: database, stateSerialization: stateSerialization, delegate: delegate, automaticallySync: true,
                subscriptionID: subscriptionID
            )
        }

        /// An engine that syncs by itself or not, as `automaticallySync` says.
        public init(
            database: Database, stateSerialization: State.Serialization? = nil, delegate: any SyncEngineDelegate,
            automaticallySync: Bool, subscriptionID: String = "stratus-sync-engine"
        ) {
            self.database = database
            self.stateSerialization = stateSerialization
            self.delegate = delegate
            self.automaticallySync = automaticallySync
            self.subscriptionID = subscriptionID
        }
    }

    public nonisolated let database: Database
    private weak var delegate: (any SyncEngineDelegate)?
    /// The pending changes and tokens.
    public internal(set) var state: State
    let configuration: Configuration
    /// Whether the signed-in user was compared with the state's.
    var accountChecked = false
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// The automatic loop's wishes and its wake-up.
    var fetchWanted = true
    var sendWanted = true
    let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>
    /// The operation the engine runs by itself right now, for ``cancelOperations()``.
    var automaticOperation: Task<Void, any Error>?
    /// Ends a running ``run()`` (``stop()``); `nil` while it does not run.
    var stopRunning: AsyncStream<Void>.Continuation?
    /// Set by ``stop()``: the engine syncs by itself no more.
    var stopped = false
    /// Zones whose token a widened scope dropped: their next fetch is reported as `refetched`.
    var refetchedByScope: Set<Zone.ID> = []
    /// The most recent entries of what the engine did (``timeline``).
    var timelineEntries: [TimelineEntry] = []

    /// The task an operation of this engine runs in, so that the delegate may call back into the engine
    /// (``add(pendingRecordZoneChanges:)`` from an event) without waiting for the operation it is part of.
    @TaskLocal static var operating: ObjectIdentifier?

    /// Makes an engine; with ``Configuration/automaticallySync`` it starts syncing by itself at once.
    /// - Throws: ``StratusError`` `invalidArguments` when the state serialization cannot be read.
    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        database = configuration.database
        delegate = configuration.delegate
        state = try configuration.stateSerialization.map(State.init) ?? State()
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        // CloudKit's shape: an engine that syncs automatically does so once it exists, in a task of its own.
        if configuration.automaticallySync {
            Task { await self.run() }
        }
    }

    /// Starts syncing by itself in a task of its own, as ``Configuration/automaticallySync`` does, for an owner that
    /// made the engine without it and finished setting up (the local store).
    package func startSyncing() {
        Task { await self.run() }
    }

    /// Stops syncing by itself for good: a running ``run()`` cancels what it does and returns, and a later one
    /// returns at once. ``fetchChanges()`` and ``sendChanges()`` still work.
    public func stop() {
        stopped = true
        stopRunning?.finish()
        wake.finish()
    }

    /// Cancels the fetch or send the engine runs by itself right now; it tries again later, as after a failure
    /// (`CKSyncEngine.cancelOperations()`).
    package func cancelOperations() {
        automaticOperation?.cancel()
    }

    // MARK: - Pending changes

    /// Records to save or delete at the next send. The engine asks the delegate for each record when it sends.
    public func add(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) async {
        state.add(changes)
        await stateChanged()
    }

    /// Records to save or delete together, at the next send: the server applies all of them or none (a Stratus
    /// addition). They are sent as one atomic request, even when they are more than a batch (up to
    /// ``maximumAtomicGroupSize``), once the delegate has handed every record of the group over. When the server
    /// refuses one change (a conflict), it applies none: every change of the group is reported failed (that one with
    /// its error, the others with `batchRequestFailed`) and leaves the pending changes, and the app adds the group
    /// again, merged, with this method; a group added again during the send goes out in the same send.
    /// - Throws: ``StratusError`` `invalidArguments` when the changes are not all in one custom zone, or are too many.
    public func add(pendingRecordZoneChanges changes: [PendingRecordZoneChange], atomicGroup group: String) async throws {
        let zones = Set(changes.map(\.recordID.zoneID))
        guard zones.count <= 1, zones.first?.zoneName != Zone.ID.defaultZoneName else {
            throw StratusError(.invalidArguments, "an atomic group's records must all be in one custom zone, not \(zones.map(\.description).sorted())")
        }
        let members = Set(state.groups.filter { $0.value == group }.keys).union(changes.map(\.recordID))
        guard members.count <= Self.maximumAtomicGroupSize else {
            throw StratusError(.limitExceeded, "an atomic group holds at most \(Self.maximumAtomicGroupSize) records, not \(members.count)")
        }
        if let other = state.groups.first(where: { $0.value == group })?.key.zoneID, let zone = zones.first, other != zone {
            throw StratusError(.invalidArguments, "the atomic group \(group) is in \(other), not \(zone)")
        }
        state.add(changes)
        for change in changes { state.groups[change.recordID] = group }
        await stateChanged()
    }

    /// The most records an atomic group holds: the most operations the server applies in one atomic request.
    public static let maximumAtomicGroupSize = 2_000

    public func remove(pendingRecordZoneChanges changes: [PendingRecordZoneChange]) async {
        state.remove(changes)
        await stateChanged(send: false)
    }

    /// Zones to save or delete at the next send, before any record change.
    public func add(pendingDatabaseChanges changes: [PendingDatabaseChange]) async {
        state.add(changes)
        await stateChanged()
    }

    public func remove(pendingDatabaseChanges changes: [PendingDatabaseChange]) async {
        state.remove(changes)
        await stateChanged(send: false)
    }

    /// Hands the new state to the delegate (in order with the events of a running operation), and asks for a send.
    private func stateChanged(send: Bool = true) async {
        await exclusively { await emit(.stateUpdate(state.serialization)) }
        if send {
            sendWanted = true
            wake.yield()
        }
    }

    // MARK: - Running one operation at a time

    /// Runs `body` when no other operation runs; within an operation (a delegate calling back), at once.
    func exclusively<T>(_ body: () async throws -> T) async rethrows -> T {
        if Self.operating == ObjectIdentifier(self) { return try await body() }
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return try await Self.$operating.withValue(ObjectIdentifier(self)) { try await body() }
    }

    func emit(_ event: Event) async {
        if let entry = TimelineEntry(event: event) { record(entry) }
        await delegate?.handleEvent(event, syncEngine: self)
    }

    var currentDelegate: (any SyncEngineDelegate)? { delegate }

    var wakeUps: AsyncStream<Void> { wakes }
}
