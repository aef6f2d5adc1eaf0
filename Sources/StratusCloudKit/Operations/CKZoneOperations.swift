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
            var saved: [CKRecordZone] = []
            var deleted: [CKRecordZone.ID] = []
            var failures: [AnyHashable: any Error] = [:]
            for zone in saving {
                let result = results.saveResults[zone.zoneID] ?? .failure(CKError(.internalError))
                perRecordZoneSaveBlock?(zone.zoneID, result)
                switch result {
                case .success(let made): saved.append(made)
                case .failure(let error): failures[zone.zoneID] = error
                }
            }
            for id in deleting {
                let result = results.deleteResults[id] ?? .failure(CKError(.internalError))
                perRecordZoneDeleteBlock?(id, result)
                switch result {
                case .success: deleted.append(id)
                case .failure(let error): failures[id] = error
                }
            }
            let failure = CKError.partialFailure(failures, of: saving.count + deleting.count, "zone changes failed")
            modifyRecordZonesResultBlock?(failure.map { .failure($0) } ?? .success(()))
            modifyRecordZonesCompletionBlock?(saved, deleted, failure)
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
            var results: [(CKRecordZone.ID, Result<CKRecordZone, any Error>)] = []
            if let recordZoneIDs {
                let found = try await database.recordZones(for: recordZoneIDs)
                results = recordZoneIDs.map { ($0, found[$0] ?? .failure(CKError(.zoneNotFound))) }
            } else {
                results = try await database.allRecordZones().map { ($0.zoneID, .success($0)) }
            }
            var fetched: [CKRecordZone.ID: CKRecordZone] = [:]
            var failures: [AnyHashable: any Error] = [:]
            for (id, result) in results {
                perRecordZoneResultBlock?(id, result)
                switch result {
                case .success(let zone): fetched[id] = zone
                case .failure(let error): failures[id] = error
                }
            }
            let failure = CKError.partialFailure(failures, "zones could not be fetched")
            fetchRecordZonesResultBlock?(failure.map { .failure($0) } ?? .success(()))
            fetchRecordZonesCompletionBlock?(fetched, failure)
        } catch {
            let error = reported(error)
            fetchRecordZonesResultBlock?(.failure(error))
            fetchRecordZonesCompletionBlock?(nil, error)
        }
    }
}
