import Foundation
import StratusKit

extension CKDatabase {
    /// A database's zone changes, as the changes calls answer them.
    public enum DatabaseChange {
        public struct Modification: Sendable {
            public let zoneID: CKRecordZone.ID
        }

        public struct Deletion: Sendable {
            public enum Reason: Sendable, Hashable {
                case deleted
                case purged
                case encryptedDataReset
            }

            public let zoneID: CKRecordZone.ID
            public let reason: Reason
        }
    }

    /// A zone's record changes, as the changes calls answer them.
    public enum RecordZoneChange {
        public struct Modification: @unchecked Sendable {
            public let record: CKRecord
        }

        public struct Deletion: Sendable {
            public let recordID: CKRecord.ID
            public let recordType: CKRecord.RecordType
        }
    }

    /// The zones that changed since a token (`nil`: every zone), and the token to fetch from next.
    public func databaseChanges(
        since changeToken: CKServerChangeToken?, resultsLimit: Int? = nil
    ) async throws -> (modifications: [DatabaseChange.Modification], deletions: [DatabaseChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool) {
        let changes = try await call { try await $0.databaseChanges(since: changeToken?.stratus, resultsLimit: resultsLimit ?? 200) }
        return (
            changes.modifications.map { DatabaseChange.Modification(zoneID: CKRecordZone.ID($0)) },
            changes.deletions.map { DatabaseChange.Deletion(zoneID: CKRecordZone.ID($0), reason: .deleted) },
            CKServerChangeToken(changes.changeToken), changes.moreComing
        )
    }

    /// A zone's records that changed since a token (`nil`: its live records), in the order they were written.
    public func recordZoneChanges(
        inZoneWith zoneID: CKRecordZone.ID, since changeToken: CKServerChangeToken?, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int? = nil
    ) async throws -> (
        modificationResultsByID: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>], deletions: [RecordZoneChange.Deletion],
        changeToken: CKServerChangeToken, moreComing: Bool
    ) {
        let changes = try await call {
            try await $0.recordZoneChanges(inZoneWith: zoneID.stratus, since: changeToken?.stratus, desiredKeys: desiredKeys, resultsLimit: resultsLimit ?? 200)
        }
        var modifications: [CKRecord.ID: Result<RecordZoneChange.Modification, any Error>] = [:]
        for (id, result) in changes.modificationResultsByID {
            modifications[CKRecord.ID(id)] = await delivered(result).map { RecordZoneChange.Modification(record: $0) }
        }
        return (
            modifications, changes.deletions.map { RecordZoneChange.Deletion(recordID: CKRecord.ID($0.recordID), recordType: $0.recordType) },
            CKServerChangeToken(changes.changeToken), changes.moreComing
        )
    }
}
