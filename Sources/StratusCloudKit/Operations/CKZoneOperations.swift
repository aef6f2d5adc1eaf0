import Foundation

/// Creates and deletes zones; each zone's result goes to its block, then `modifyRecordZonesResultBlock` (or
/// `modifyRecordZonesCompletionBlock`) ends the operation, with `partialFailure` when some failed.
open class CKModifyRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    open var recordZonesToSave: [CKRecordZone]?
    open var recordZoneIDsToDelete: [CKRecordZone.ID]?

    open var perRecordZoneSaveBlock: ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?
    open var perRecordZoneDeleteBlock: ((CKRecordZone.ID, Result<Void, any Error>) -> Void)?
    open var modifyRecordZonesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``modifyRecordZonesResultBlock``.
    open var modifyRecordZonesCompletionBlock: (([CKRecordZone]?, [CKRecordZone.ID]?, (any Error)?) -> Void)?

    public override init() {}

    public convenience init(recordZonesToSave: [CKRecordZone]?, recordZoneIDsToDelete: [CKRecordZone.ID]?) {
        self.init()
        self.recordZonesToSave = recordZonesToSave
        self.recordZoneIDsToDelete = recordZoneIDsToDelete
    }

    override func execute() async {
        let saving = recordZonesToSave ?? []
        let deleting = recordZoneIDsToDelete ?? []
        do {
            guard !isCancelled else { throw CancellationError() }
            let results = try await targetDatabase.modifyRecordZones(saving: saving, deleting: deleting)
            let saves = ItemResults(saving.map(\.zoneID), results.saveResults) { perRecordZoneSaveBlock?($0, $1) }
            let deletes = ItemResults(deleting, results.deleteResults) { perRecordZoneDeleteBlock?($0, $1) }
            let failure = CKError.partialFailure(saves.failures.merging(deletes.failures) { $1 }, of: saving.count + deleting.count, "zone changes failed")
            modifyRecordZonesResultBlock?(failure.operationResult)
            modifyRecordZonesCompletionBlock?(saves.succeeded.map(\.value), deletes.succeeded.map(\.id), failure)
        } catch {
            let error = reported(error)
            modifyRecordZonesResultBlock?(.failure(error))
            modifyRecordZonesCompletionBlock?(nil, nil, error)
        }
    }
}

/// Fetches zones by ID, or every zone of the database (``fetchAllRecordZonesOperation()``).
open class CKFetchRecordZonesOperation: CKDatabaseOperation, @unchecked Sendable {
    open var recordZoneIDs: [CKRecordZone.ID]?

    open var perRecordZoneResultBlock: ((CKRecordZone.ID, Result<CKRecordZone, any Error>) -> Void)?
    open var fetchRecordZonesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``fetchRecordZonesResultBlock``: the zones fetched, by ID.
    open var fetchRecordZonesCompletionBlock: (([CKRecordZone.ID: CKRecordZone]?, (any Error)?) -> Void)?

    public required override init() {}

    public convenience init(recordZoneIDs: [CKRecordZone.ID]) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
    }

    /// An operation that fetches every zone of the database.
    open class func fetchAllRecordZonesOperation() -> Self {
        self.init()
    }

    override func execute() async {
        do {
            guard !isCancelled else { throw CancellationError() }
            let database = targetDatabase
            let ids: [CKRecordZone.ID]
            let results: [CKRecordZone.ID: Result<CKRecordZone, any Error>]
            if let recordZoneIDs {
                (ids, results) = (recordZoneIDs, try await database.recordZones(for: recordZoneIDs))
            } else {
                let zones = try await database.allRecordZones()
                (ids, results) = (zones.map(\.zoneID), Dictionary(zones.map { ($0.zoneID, .success($0)) }, uniquingKeysWith: { $1 }))
            }
            let fetched = ItemResults(ids, results, missing: .zoneNotFound) { perRecordZoneResultBlock?($0, $1) }
            let failure = CKError.partialFailure(fetched.failures, "zones could not be fetched")
            fetchRecordZonesResultBlock?(failure.operationResult)
            fetchRecordZonesCompletionBlock?(Dictionary(fetched.succeeded, uniquingKeysWith: { $1 }), failure)
        } catch {
            let error = reported(error)
            fetchRecordZonesResultBlock?(.failure(error))
            fetchRecordZonesCompletionBlock?(nil, error)
        }
    }
}
