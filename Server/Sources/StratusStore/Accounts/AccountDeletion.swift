import Foundation
import StratusModel

/// Deletes an account and its data, in steps that can run again after a crash: each step is idempotent, and an
/// account whose deletion started stays marked (``Account/isBeingDeleted``) until the last step removes it.
///
/// ```swift
/// let account = try await store.beginAccountDeletion(containerID: id, userRecordName: user)
/// try await AccountDeletion.finish(account, publicRecords: .keep, store: store)
/// ```
public enum AccountDeletion {
    /// Public records deleted per request.
    static let batchSize = 200

    /// Erases the account's data in both environments, deletes or keeps its public records as `publicRecords`
    /// says, deletes its `Users` records, and removes the account.
    public static func finish(_ account: Account, publicRecords: AccountSettings.DeletedUserPublicRecords, store: any Store) async throws {
        let containerID = account.containerID
        let user = account.userRecordName
        for environment in Environment.allCases {
            try await store.erasePrivateData(containerID: containerID, userRecordName: user, environment: environment)
            let zone = DatabaseRef.publicDatabase(containerID, environment).zone(ZoneID.defaultZoneName)
            if publicRecords == .delete {
                var previous: [String] = []
                while true {
                    let names = try await store.publicRecordNames(createdBy: user, containerID: containerID, environment: environment, after: nil, limit: batchSize)
                        .filter { $0 != user }
                    // Records that cannot go (a reference that must stay valid holds them) are kept, without an owner.
                    if names.isEmpty || names == previous { break }
                    previous = names
                    try await delete(names, in: zone, store: store)
                }
            }
            try await delete([user], in: zone, store: store)
        }
        try await store.finishAccountDeletion(containerID: containerID, userRecordName: user)
    }

    /// Deletes records as the container's operator would; a missing one is not an error.
    private static func delete(_ names: [String], in zone: ZoneRef, store: any Store) async throws {
        let operations = names.map { RecordOperation(type: .forceDelete, recordName: $0) }
        _ = try await store.modifyRecords(RecordBatch(
            zone: zone, operations: operations, atomic: false, caller: Caller(userRecordName: nil, hasAllPermissions: true, isDeletingAccount: true),
            timestamp: Int64(Date().timeIntervalSince1970 * 1000)
        ))
    }
}
