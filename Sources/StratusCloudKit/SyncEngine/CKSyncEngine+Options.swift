import Foundation
import StratusKit

/// What the app does for its sync engine: it handles the engine's events, and hands it the records to send.
public protocol CKSyncEngineDelegate: AnyObject, Sendable {
    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async
    /// The next batch of record changes to send, usually
    /// `await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { id in myStore.record(id) }`; `nil` when
    /// there is nothing (more) to send.
    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch?
    /// What a fetch the engine starts by itself covers; by default what the context proposes (every zone).
    func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions
}

extension CKSyncEngineDelegate {
    public func nextFetchChangesOptions(_ context: CKSyncEngine.FetchChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.FetchChangesOptions {
        context.options
    }
}

extension CKSyncEngine {
    /// Why the engine syncs: by itself, or because the app called `fetchChanges` or `sendChanges`.
    public enum SyncReason: Sendable, Hashable {
        case scheduled
        case manual
    }

    /// Which zones a fetch covers.
    public struct FetchChangesOptions: Sendable {
        public enum Scope: Sendable, Hashable {
            case all
            case zoneIDs([CKRecordZone.ID])
            case allExcluding([CKRecordZone.ID])

            public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let zones): zones.contains(zoneID)
                case .allExcluding(let zones): !zones.contains(zoneID)
                }
            }
        }

        public var scope: Scope
        /// Zones fetched before the others.
        public var prioritizedZoneIDs: [CKRecordZone.ID] = []
        /// The group the fetch's work belongs to, as the app names it.
        public var operationGroup = CKOperationGroup()

        public init(scope: Scope = .all) {
            self.scope = scope
        }

        /// The zones StratusKit's engine fetches, and those first.
        var zoneFilter: (included: @Sendable (Zone.ID) -> Bool, prioritized: [Zone.ID]) {
            let scope = scope
            return ({ scope.contains(CKRecordZone.ID($0)) }, prioritizedZoneIDs.map(\.stratus))
        }
    }

    /// Which pending changes a send covers.
    public struct SendChangesOptions: Sendable {
        public enum Scope: Sendable, Hashable {
            case all
            case zoneIDs([CKRecordZone.ID])
            case allExcluding([CKRecordZone.ID])
            case recordIDs([CKRecord.ID])

            public func contains(_ zoneID: CKRecordZone.ID) -> Bool {
                switch self {
                case .all: true
                case .zoneIDs(let zones): zones.contains(zoneID)
                case .allExcluding(let zones): !zones.contains(zoneID)
                case .recordIDs(let records): records.contains { $0.zoneID == zoneID }
                }
            }

            public func contains(_ recordID: CKRecord.ID) -> Bool {
                switch self {
                case .recordIDs(let records): records.contains(recordID)
                default: contains(recordID.zoneID)
                }
            }

            public func contains(_ pendingChange: PendingRecordZoneChange) -> Bool {
                contains(pendingChange.recordID)
            }

            public func contains(_ pendingChange: PendingDatabaseChange) -> Bool {
                switch pendingChange {
                case .saveZone(let zone): contains(zone.zoneID)
                case .deleteZone(let zoneID): contains(zoneID)
                }
            }
        }

        public var scope: Scope
        /// The group the send's work belongs to, as the app names it.
        public var operationGroup = CKOperationGroup()

        public init(scope: Scope = .all) {
            self.scope = scope
        }
    }

    public struct FetchChangesContext: Sendable {
        public let reason: SyncReason
        public let options: FetchChangesOptions
    }

    /// What a send is for: build the next batch from the pending changes `options.scope` contains.
    public struct SendChangesContext: Sendable {
        public let reason: SyncReason
        public let options: SendChangesOptions
    }

    /// Record changes to send together.
    public struct RecordZoneChangeBatch: @unchecked Sendable {
        public var recordsToSave: [CKRecord]
        public var recordIDsToDelete: [CKRecord.ID]
        /// Whether each custom zone's changes are applied all or none.
        public var atomicByZone: Bool
        /// Pending saves whose record the app no longer has: they leave the pending changes.
        var droppedSaves: [CKRecord.ID] = []

        public init(recordsToSave: [CKRecord] = [], recordIDsToDelete: [CKRecord.ID] = [], atomicByZone: Bool = false) {
            self.recordsToSave = recordsToSave
            self.recordIDsToDelete = recordIDsToDelete
            self.atomicByZone = atomicByZone
        }

        /// The first pending changes, up to the most a batch holds, with each save's record asked of
        /// `recordProvider`; a save it answers `nil` for leaves the pending changes. `nil` when there is nothing
        /// to send.
        public init?(pendingChanges: [PendingRecordZoneChange], recordProvider: (CKRecord.ID) async -> CKRecord?) async {
            var saves: [CKRecord] = []
            var deletes: [CKRecord.ID] = []
            var dropped: [CKRecord.ID] = []
            for change in pendingChanges where saves.count + deletes.count < SyncEngine.RecordZoneChangeBatch.maximumSize {
                switch change {
                case .saveRecord(let id):
                    if let record = await recordProvider(id) { saves.append(record) } else { dropped.append(id) }
                case .deleteRecord(let id):
                    deletes.append(id)
                }
            }
            guard !saves.isEmpty || !deletes.isEmpty || !dropped.isEmpty else { return nil }
            self.init(recordsToSave: saves, recordIDsToDelete: deletes)
            droppedSaves = dropped
        }
    }
}
