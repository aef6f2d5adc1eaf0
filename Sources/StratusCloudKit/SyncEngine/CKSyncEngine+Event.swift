import Foundation
import StratusKit

extension CKSyncEngine {
    /// What the engine reports to its delegate, one event at a time, in order.
    public enum Event: Sendable, CustomStringConvertible {
        /// The state changed: keep `stateSerialization` and hand it to the next engine.
        case stateUpdate(StateUpdate)
        /// The signed-in user changed; on the first run for a user, a sign-in.
        case accountChange(AccountChange)
        case fetchedDatabaseChanges(FetchedDatabaseChanges)
        case fetchedRecordZoneChanges(FetchedRecordZoneChanges)
        case sentDatabaseChanges(SentDatabaseChanges)
        case sentRecordZoneChanges(SentRecordZoneChanges)
        case willFetchChanges(WillFetchChanges)
        case willFetchRecordZoneChanges(WillFetchRecordZoneChanges)
        case didFetchRecordZoneChanges(DidFetchRecordZoneChanges)
        case didFetchChanges(DidFetchChanges)
        case willSendChanges(WillSendChanges)
        case didSendChanges(DidSendChanges)

        public struct StateUpdate: Sendable {
            public let stateSerialization: State.Serialization
        }

        public struct AccountChange: Sendable {
            public enum ChangeType: Sendable {
                case signIn(currentUser: CKRecord.ID)
                case signOut(previousUser: CKRecord.ID)
                case switchAccounts(previousUser: CKRecord.ID, currentUser: CKRecord.ID)
            }

            public let changeType: ChangeType
        }

        public struct FetchedDatabaseChanges: Sendable {
            public let modifications: [CKDatabase.DatabaseChange.Modification]
            public let deletions: [CKDatabase.DatabaseChange.Deletion]
        }

        /// One page of a zone's changed records, oldest first.
        public struct FetchedRecordZoneChanges: Sendable {
            public let modifications: [CKDatabase.RecordZoneChange.Modification]
            public let deletions: [CKDatabase.RecordZoneChange.Deletion]
        }

        public struct SentDatabaseChanges: Sendable {
            public struct FailedZoneSave: @unchecked Sendable {
                public let zone: CKRecordZone
                public let error: CKError
            }

            public let savedZones: [CKRecordZone]
            public let failedZoneSaves: [FailedZoneSave]
            public let deletedZoneIDs: [CKRecordZone.ID]
            public let failedZoneDeletes: [CKRecordZone.ID: CKError]
        }

        /// One batch of record changes sent. A failed change stays pending: fix what the error says (merge the
        /// server's record, make the zone again) and add it again, or remove it.
        public struct SentRecordZoneChanges: Sendable {
            public struct FailedRecordSave: @unchecked Sendable {
                public let record: CKRecord
                public let error: CKError
            }

            public let savedRecords: [CKRecord]
            public let failedRecordSaves: [FailedRecordSave]
            public let deletedRecordIDs: [CKRecord.ID]
            public let failedRecordDeletes: [CKRecord.ID: CKError]
        }

        public struct WillFetchChanges: Sendable {
            public let context: FetchChangesContext
        }

        public struct WillFetchRecordZoneChanges: Sendable {
            public let zoneID: CKRecordZone.ID
        }

        public struct DidFetchRecordZoneChanges: Sendable {
            public let zoneID: CKRecordZone.ID
            public let error: CKError?
        }

        public struct DidFetchChanges: Sendable {
            public let context: FetchChangesContext
        }

        public struct WillSendChanges: Sendable {
            public let context: SendChangesContext
        }

        public struct DidSendChanges: Sendable {
            public let context: SendChangesContext
        }

        public var description: String {
            switch self {
            case .stateUpdate: "stateUpdate"
            case .accountChange(let change): "accountChange(\(change.changeType))"
            case .fetchedDatabaseChanges(let changes): "fetchedDatabaseChanges(\(changes.modifications.count) modified, \(changes.deletions.count) deleted)"
            case .fetchedRecordZoneChanges(let changes): "fetchedRecordZoneChanges(\(changes.modifications.count) modified, \(changes.deletions.count) deleted)"
            case .sentDatabaseChanges(let changes): "sentDatabaseChanges(\(changes.savedZones.count) saved, \(changes.deletedZoneIDs.count) deleted, \(changes.failedZoneSaves.count + changes.failedZoneDeletes.count) failed)"
            case .sentRecordZoneChanges(let changes): "sentRecordZoneChanges(\(changes.savedRecords.count) saved, \(changes.deletedRecordIDs.count) deleted, \(changes.failedRecordSaves.count + changes.failedRecordDeletes.count) failed)"
            case .willFetchChanges: "willFetchChanges"
            case .willFetchRecordZoneChanges(let event): "willFetchRecordZoneChanges(\(event.zoneID.zoneName))"
            case .didFetchRecordZoneChanges(let event): "didFetchRecordZoneChanges(\(event.zoneID.zoneName)\(event.error.map { ", \($0.code)" } ?? ""))"
            case .didFetchChanges: "didFetchChanges"
            case .willSendChanges: "willSendChanges"
            case .didSendChanges: "didSendChanges"
            }
        }
    }
}

extension CKSyncEngine.Event {
    /// A page of a zone's changes: records as the app gets them, and the deletions StratusKit reported.
    static func fetched(_ records: [CKRecord], deletions: [(recordID: Record.ID, recordType: String)]) -> Self {
        .fetchedRecordZoneChanges(FetchedRecordZoneChanges(
            modifications: records.map { CKDatabase.RecordZoneChange.Modification(record: $0) },
            deletions: deletions.map { CKDatabase.RecordZoneChange.Deletion(recordID: CKRecord.ID($0.recordID), recordType: $0.recordType) }
        ))
    }

    /// StratusKit's event as CloudKit's; `nil` for the events CloudKit has no counterpart of (batch receipts, a
    /// narrowed scope).
    init?(_ event: SyncEngine.Event, fetch: CKSyncEngine.FetchChangesContext, send: CKSyncEngine.SendChangesContext) {
        switch event {
        case .stateUpdate(let serialization):
            self = .stateUpdate(StateUpdate(stateSerialization: CKSyncEngine.State.Serialization(serialization)))
        case .accountChange(let previous, let current):
            let change: AccountChange.ChangeType
            switch (previous.map { CKRecord.ID(recordName: $0) }, current.map { CKRecord.ID(recordName: $0) }) {
            case (let previous?, let current?): change = .switchAccounts(previousUser: previous, currentUser: current)
            case (nil, let current?): change = .signIn(currentUser: current)
            case (let previous?, nil): change = .signOut(previousUser: previous)
            case (nil, nil): return nil
            }
            self = .accountChange(AccountChange(changeType: change))
        case .fetchedDatabaseChanges(let modifications, let deletions):
            self = .fetchedDatabaseChanges(FetchedDatabaseChanges(
                modifications: modifications.map { CKDatabase.DatabaseChange.Modification(zoneID: CKRecordZone.ID($0)) },
                deletions: deletions.map { CKDatabase.DatabaseChange.Deletion(zoneID: CKRecordZone.ID($0), reason: .deleted) }
            ))
        case .fetchedRecordZoneChanges(_, let modifications, let deletions, _):
            self = .fetched(modifications.map(CKRecord.made), deletions: deletions)
        case .sentDatabaseChanges(let saved, let failedSaves, let deleted, let failedDeletes):
            self = .sentDatabaseChanges(SentDatabaseChanges(
                savedZones: saved.map(CKRecordZone.init),
                failedZoneSaves: failedSaves.map { .init(zone: CKRecordZone(zoneID: CKRecordZone.ID($0.zoneID)), error: CKError($0.error)) },
                deletedZoneIDs: deleted.map(CKRecordZone.ID.init),
                failedZoneDeletes: Dictionary(failedDeletes.map { (CKRecordZone.ID($0.key), CKError($0.value)) }, uniquingKeysWith: { $1 })
            ))
        case .sentRecordZoneChanges(let saved, let failedSaves, let deleted, let failedDeletes):
            self = .sentRecordZoneChanges(SentRecordZoneChanges(
                savedRecords: saved.map(CKRecord.made),
                failedRecordSaves: failedSaves.map { .init(record: CKRecord.made(from: $0.record), error: CKError($0.error)) },
                deletedRecordIDs: deleted.map(CKRecord.ID.init),
                failedRecordDeletes: Dictionary(failedDeletes.map { (CKRecord.ID($0.key), CKError($0.value)) }, uniquingKeysWith: { $1 })
            ))
        case .willFetchChanges: self = .willFetchChanges(WillFetchChanges(context: fetch))
        case .willFetchRecordZoneChanges(let zoneID): self = .willFetchRecordZoneChanges(WillFetchRecordZoneChanges(zoneID: CKRecordZone.ID(zoneID)))
        case .didFetchRecordZoneChanges(let zoneID, let error):
            self = .didFetchRecordZoneChanges(DidFetchRecordZoneChanges(zoneID: CKRecordZone.ID(zoneID), error: error.map(CKError.init)))
        case .didFetchChanges: self = .didFetchChanges(DidFetchChanges(context: fetch))
        case .willSendChanges: self = .willSendChanges(WillSendChanges(context: send))
        case .didSendChanges: self = .didSendChanges(DidSendChanges(context: send))
        case .sentBatch, .syncScopeNarrowed: return nil
        }
    }
}
