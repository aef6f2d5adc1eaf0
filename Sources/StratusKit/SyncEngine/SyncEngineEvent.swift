import Foundation

/// What the app does for its sync engine (`CKSyncEngineDelegate`): it handles the engine's events, and hands it
/// the records to send.
public protocol SyncEngineDelegate: AnyObject, Sendable {
    /// Called for each event, one at a time, in order.
    func handleEvent(_ event: SyncEngine.Event, syncEngine: SyncEngine) async
    /// The next batch of record changes to send, usually
    /// `SyncEngine.RecordZoneChangeBatch(pendingChanges: context.pendingChanges) { id in myStore.record(id) }`;
    /// `nil` when there is nothing (more) to send.
    func nextRecordZoneChangeBatch(_ context: SyncEngine.SendChangesContext, syncEngine: SyncEngine) async -> SyncEngine.RecordZoneChangeBatch?
}

extension SyncEngine {
    /// What the engine reports (`CKSyncEngine.Event`).
    public enum Event: Sendable {
        /// The state changed: persist it, and hand it to the next engine.
        case stateUpdate(State.Serialization)
        /// The signed-in user changed; the engine forgot the previous user's tokens and pending changes.
        case accountChange(previousUser: String?, currentUser: String?)
        /// Zones that changed, and zones deleted (or, in the shared database, no longer shared with the user).
        case fetchedDatabaseChanges(modifications: [Zone.ID], deletions: [Zone.ID])
        /// One page of a zone's changed records, in commit order. With `refetched`, the zone's token was no longer
        /// accepted and its records come again from the start: the app replaces what it has of the zone.
        case fetchedRecordZoneChanges(zoneID: Zone.ID, modifications: [Record], deletions: [(recordID: Record.ID, recordType: String)], refetched: Bool)
        /// Zone changes sent: what was saved and deleted, and what failed with which error.
        case sentDatabaseChanges(savedZones: [Zone], failedZoneSaves: [(zoneID: Zone.ID, error: StratusError)], deletedZoneIDs: [Zone.ID], failedZoneDeletes: [Zone.ID: StratusError])
        /// One batch of record changes sent. A failed save comes with its error: for `serverRecordChanged`, the
        /// error's `serverRecord`, `clientRecord` and `ancestorRecord`; the app merges and adds the save again.
        /// Failures that retrying fixes (the network, `requestRateLimited`, `serviceUnavailable`) are not reported:
        /// they stay pending and are sent again.
        case sentRecordZoneChanges(savedRecords: [Record], failedRecordSaves: [(record: Record, error: StratusError)], deletedRecordIDs: [Record.ID], failedRecordDeletes: [Record.ID: StratusError])
        /// What became of each change of one sent batch (a Stratus addition), after ``sentRecordZoneChanges``;
        /// also when the whole request failed, its changes then still pending.
        case sentBatch(BatchReceipt)
        /// The scope was narrowed (``SyncEngine/setScope(_:)``): drop what you keep of `removedZoneIDs`, and, when
        /// `keptRecordTypes` is given, records of other types in every zone (a Stratus addition).
        case syncScopeNarrowed(removedZoneIDs: [Zone.ID], keptRecordTypes: Set<String>?)
        case willFetchChanges
        case willFetchRecordZoneChanges(zoneID: Zone.ID)
        case didFetchRecordZoneChanges(zoneID: Zone.ID, error: StratusError?)
        case didFetchChanges
        case willSendChanges
        case didSendChanges
    }

    /// Why a send happens, and what waits (`CKSyncEngine.SendChangesContext`).
    public struct SendChangesContext: Sendable {
        public enum Reason: Sendable, Hashable {
            case scheduled, explicit
        }

        public var reason: Reason
        /// The record changes waiting, oldest first, not counting those already in this send's earlier batches.
        public var pendingChanges: [PendingRecordZoneChange]
        /// The atomic group the changes belong to, when the engine is gathering one
        /// (``SyncEngine/add(pendingRecordZoneChanges:atomicGroup:)``): hand over every record asked for.
        public var atomicGroup: String?

        init(reason: Reason, pendingChanges: [PendingRecordZoneChange], atomicGroup: String? = nil) {
            self.reason = reason
            self.pendingChanges = pendingChanges
            self.atomicGroup = atomicGroup
        }
    }

    /// Record changes to send together (`CKSyncEngine.RecordZoneChangeBatch`), at most ``maximumSize``.
    public struct RecordZoneChangeBatch: Sendable {
        /// The most changes a batch holds (the server's limit per request).
        public static let maximumSize = 200

        public var recordsToSave: [Record]
        public var recordIDsToDelete: [Record.ID]
        /// The app's name for the batch, handed back in its ``BatchReceipt`` (a Stratus addition).
        public var label: String?
        /// Pending saves whose record the app no longer has: dropped from the pending changes.
        var droppedSaves: [PendingRecordZoneChange] = []
        /// Whether each zone's changes are applied all or none (`CKSyncEngine.RecordZoneChangeBatch.atomicByZone`);
        /// custom zones only, as in CloudKit.
        package var atomicByZone = false

        public init(recordsToSave: [Record], recordIDsToDelete: [Record.ID], label: String? = nil) {
            self.recordsToSave = Array(recordsToSave.prefix(Self.maximumSize))
            self.recordIDsToDelete = Array(recordIDsToDelete.prefix(Self.maximumSize - self.recordsToSave.count))
            self.label = label
        }

        /// The first pending changes, up to ``maximumSize``, with each save's record asked of `recordProvider` now;
        /// a save whose record it answers `nil` for is dropped. `nil` when there is nothing to send.
        public init?(pendingChanges: [PendingRecordZoneChange], label: String? = nil, recordProvider: (Record.ID) async -> Record?) async {
            var saves: [Record] = []
            var deletes: [Record.ID] = []
            var dropped: [PendingRecordZoneChange] = []
            for change in pendingChanges where saves.count + deletes.count < Self.maximumSize {
                switch change {
                case .saveRecord(let id):
                    if let record = await recordProvider(id) { saves.append(record) } else { dropped.append(change) }
                case .deleteRecord(let id):
                    deletes.append(id)
                }
            }
            guard !saves.isEmpty || !deletes.isEmpty || !dropped.isEmpty else { return nil }
            self.init(recordsToSave: saves, recordIDsToDelete: deletes, label: label)
            droppedSaves = dropped
        }
    }
}
