import Foundation
import StratusKit

/// Keeps a private or shared database in sync with the app's own store, as CloudKit's `CKSyncEngine`: the app adds
/// pending changes to ``state``, hands records over in ``CKSyncEngineDelegate/nextRecordZoneChangeBatch(_:syncEngine:)``
/// and applies what ``CKSyncEngineDelegate/handleEvent(_:syncEngine:)`` reports. Built over StratusKit's
/// `SyncEngine`, which does the fetching, sending and retrying.
public final class CKSyncEngine: @unchecked Sendable {
    /// How an engine is set up.
    public struct Configuration: @unchecked Sendable {
        public var database: CKDatabase
        /// What the last engine's `.stateUpdate` event gave; `nil` on the first launch.
        public var stateSerialization: State.Serialization?
        /// Kept weakly, as CloudKit keeps it.
        public weak var delegate: (any CKSyncEngineDelegate)?
        /// Whether the engine fetches and sends by itself (the default); without it, only ``fetchChanges(_:)``
        /// and ``sendChanges(_:)`` do.
        public var automaticallySync = true
        /// The database subscription the engine saves to hear of changes.
        public var subscriptionID: CKSubscription.ID?

        public init(database: CKDatabase, stateSerialization: State.Serialization?, delegate: any CKSyncEngineDelegate) {
            self.database = database
            self.stateSerialization = stateSerialization
            self.delegate = delegate
        }
    }

    public let database: CKDatabase
    /// The pending changes, changed synchronously.
    public let state: State
    let engine: SyncEngine
    private let bridge: EventBridge
    private let running = Locked<[UUID: Task<Void, any Error>]>([:])

    public init(_ configuration: Configuration) {
        database = configuration.database
        let bridge = EventBridge(delegate: configuration.delegate)
        var setup = SyncEngine.Configuration(
            database: configuration.database.stratus, stateSerialization: configuration.stateSerialization?.stratus, delegate: bridge,
            automaticallySync: false, subscriptionID: configuration.subscriptionID ?? "stratus-sync-engine"
        )
        setup.keepsFailedChangesPending = true
        setup.reportsFirstSignIn = true
        setup.scheduledFetchOptions = { [weak bridge] in
            await bridge?.scheduledFetchOptions() ?? ({ _ in true }, [])
        }
        let untracked = Locked(false)
        setup.hasUntrackedChanges = { untracked.withLock { $0 } }
        // A saved state that cannot be read is dropped: the engine starts over, fetching everything.
        let engine = (try? SyncEngine(setup)) ?? {
            setup.stateSerialization = nil
            return try! SyncEngine(setup)
        }()
        self.engine = engine
        state = State(engine: engine, restoring: setup.stateSerialization.map(State.Serialization.init), untracked: untracked)
        self.bridge = bridge
        bridge.owner = self
        if configuration.automaticallySync {
            Task { await engine.startSyncing() }
        }
    }

    /// An engine the app lets go of stops syncing.
    deinit {
        Task { [engine] in await engine.stop() }
    }

    /// Fetches what changed on the server in the zones `options` covers, reporting it through the delegate.
    public func fetchChanges(_ options: FetchChangesOptions = FetchChangesOptions()) async throws {
        await state.flush()
        bridge.fetchContext = FetchChangesContext(reason: .manual, options: options)
        let zones = options.zoneFilter
        try await tracked { [engine] in
            try await engine.fetchChanges(inZones: zones.included, prioritized: zones.prioritized)
        }
    }

    /// Sends the pending changes `options` covers: zone changes first, then records, batch by batch.
    public func sendChanges(_ options: SendChangesOptions = SendChangesOptions()) async throws {
        await state.flush()
        bridge.sendContext = SendChangesContext(reason: .manual, options: options)
        defer { bridge.sendContext = SendChangesContext(reason: .scheduled, options: SendChangesOptions()) }
        try await tracked { [engine] in try await engine.sendChanges() }
    }

    /// Cancels the fetches and sends running now; pending changes stay pending.
    public func cancelOperations() async {
        for task in running.withLock({ Array($0.values) }) { task.cancel() }
        await engine.cancelOperations()
    }

    /// Runs an engine call as a task ``cancelOperations()`` can cancel, reporting its errors as CloudKit's.
    private func tracked(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let id = UUID()
        let task = Task { try await body() }
        running.withLock { $0[id] = task }
        defer { running.withLock { $0[id] = nil } }
        do {
            try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch {
            throw CKError.from(error)
        }
    }
}

/// StratusKit's engine's delegate: hands its events and requests to the app's `CKSyncEngineDelegate` as
/// CloudKit's, keeps the synchronous state in step, and takes the changes the app adds while it handles an event
/// before the engine goes on.
final class EventBridge: SyncEngineDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private weak var delegate: (any CKSyncEngineDelegate)?
    weak var owner: CKSyncEngine?
    private var sendContextValue = CKSyncEngine.SendChangesContext(reason: .scheduled, options: .init())
    private var fetchContextValue = CKSyncEngine.FetchChangesContext(reason: .scheduled, options: .init())
    /// Zones refetched from the start whose earlier records the app was told to drop.
    private var refetching: Set<Zone.ID> = []

    init(delegate: (any CKSyncEngineDelegate)?) {
        self.delegate = delegate
    }

    var sendContext: CKSyncEngine.SendChangesContext {
        get { lock.withLock { sendContextValue } }
        set { lock.withLock { sendContextValue = newValue } }
    }

    var fetchContext: CKSyncEngine.FetchChangesContext {
        get { lock.withLock { fetchContextValue } }
        set { lock.withLock { fetchContextValue = newValue } }
    }

    func handleEvent(_ event: SyncEngine.Event, syncEngine: SyncEngine) async {
        guard let owner else { return }
        switch event {
        case .stateUpdate:
            owner.state.refresh(from: await syncEngine.state, unfetchedZones: await syncEngine.zoneIDsWithUnfetchedChanges)
        case .fetchedRecordZoneChanges(let zoneID, let modifications, let deletions, let refetched):
            // A zone whose token was no longer accepted: its records come again from the start, so the app drops what
            // it has of the zone first, as for a zone deleted and fetched anew.
            if refetched, lock.withLock({ refetching.insert(zoneID).inserted }) {
                await deliver(.fetchedDatabaseChanges(.init(
                    modifications: [], deletions: [CKDatabase.DatabaseChange.Deletion(zoneID: CKRecordZone.ID(zoneID), reason: .deleted)]
                )), to: owner, engine: syncEngine)
            }
            // Records come with their assets downloaded, as CloudKit hands them out; one whose asset cannot be
            // downloaded now still comes, its asset without a file.
            var records: [CKRecord] = []
            for record in modifications {
                records.append((try? await owner.database.delivered(record)) ?? CKRecord.made(from: record))
            }
            await deliver(.fetched(records, deletions: deletions), to: owner, engine: syncEngine)
            return
        case .didFetchRecordZoneChanges(let zoneID, _):
            _ = lock.withLock { refetching.remove(zoneID) }
        case .didFetchChanges:
            defer { fetchContext = CKSyncEngine.FetchChangesContext(reason: .scheduled, options: .init()) }
            await deliver(.didFetchChanges(.init(context: fetchContext)), to: owner, engine: syncEngine)
            return
        default:
            break
        }
        guard let converted = CKSyncEngine.Event(event, fetch: fetchContext, send: sendContext) else { return }
        await deliver(converted, to: owner, engine: syncEngine)
    }

    /// Hands an event to the app; the changes it adds meanwhile reach the engine before this returns.
    private func deliver(_ event: CKSyncEngine.Event, to owner: CKSyncEngine, engine: SyncEngine) async {
        guard let delegate else { return }
        let changes = CKSyncEngine.State.HandlerChanges()
        await CKSyncEngine.State.$handlerChanges.withValue(changes) {
            await delegate.handleEvent(event, syncEngine: owner)
        }
        for (number, change) in changes.close() {
            await change.apply(to: engine)
            owner.state.applied(number)
        }
    }

    func nextRecordZoneChangeBatch(_ context: SyncEngine.SendChangesContext, syncEngine: SyncEngine) async -> SyncEngine.RecordZoneChangeBatch? {
        guard let delegate, let owner else { return nil }
        let sendContext = context.reason == .explicit ? self.sendContext : CKSyncEngine.SendChangesContext(reason: .scheduled, options: .init())
        guard let batch = await delegate.nextRecordZoneChangeBatch(sendContext, syncEngine: owner) else {
            owner.state.untrackedChangesSent()
            return nil
        }
        // Only what this send still has to send: a change already tried in it (a refused one stays pending) waits for
        // the next send; a record with no pending change goes only when the app said it has untracked changes.
        let toSend = Set(context.pendingChanges)
        let engineState = await syncEngine.state
        let untracked = owner.state.hasPendingUntrackedChanges
        func wanted(_ change: StratusKit.PendingRecordZoneChange) -> Bool {
            toSend.contains(change) || (untracked && !engineState.isPending(change.recordID))
        }
        let saves = batch.recordsToSave.filter { wanted(.saveRecord($0.recordID.stratus)) }
        let deletes = batch.recordIDsToDelete.filter { wanted(.deleteRecord($0.stratus)) }
        let dropped = batch.droppedSaves.filter { toSend.contains(.saveRecord($0.stratus)) }
        guard !saves.isEmpty || !deletes.isEmpty || !dropped.isEmpty else { return nil }
        let records = Dictionary(saves.map { ($0.recordID.stratus, $0.stratus) }, uniquingKeysWith: { $1 })
        let changes = saves.map { StratusKit.PendingRecordZoneChange.saveRecord($0.recordID.stratus) }
            + deletes.map { .deleteRecord($0.stratus) } + dropped.map { .saveRecord($0.stratus) }
        var converted = await SyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { records[$0] }
        converted?.atomicByZone = batch.atomicByZone
        return converted
    }

    /// What a fetch the engine starts by itself covers, as the app's delegate says.
    func scheduledFetchOptions() async -> (included: @Sendable (Zone.ID) -> Bool, prioritized: [Zone.ID]) {
        guard let delegate, let owner else { return ({ _ in true }, []) }
        let options = await delegate.nextFetchChangesOptions(CKSyncEngine.FetchChangesContext(reason: .scheduled, options: .init()), syncEngine: owner)
        fetchContext = CKSyncEngine.FetchChangesContext(reason: .scheduled, options: options)
        return options.zoneFilter
    }
}
