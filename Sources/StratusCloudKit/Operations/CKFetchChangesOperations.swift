import Foundation

/// The zones of a database that changed since a token: each zone goes to its block as it comes, then
/// `fetchDatabaseChangesResultBlock` (or `fetchDatabaseChangesCompletionBlock`) gets the new token. With
/// `fetchAllChanges` (the default) it fetches until nothing more is coming.
open class CKFetchDatabaseChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    open var previousServerChangeToken: CKServerChangeToken?
    open var resultsLimit = 0
    open var fetchAllChanges = true

    open var recordZoneWithIDChangedBlock: ((CKRecordZone.ID) -> Void)?
    open var recordZoneWithIDWasDeletedBlock: ((CKRecordZone.ID) -> Void)?
    open var recordZoneWithIDWasPurgedBlock: ((CKRecordZone.ID) -> Void)?
    open var recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock: ((CKRecordZone.ID) -> Void)?
    open var changeTokenUpdatedBlock: ((CKServerChangeToken) -> Void)?
    open var fetchDatabaseChangesResultBlock: ((Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void)?
    /// CloudKit's older form of ``fetchDatabaseChangesResultBlock``.
    open var fetchDatabaseChangesCompletionBlock: ((CKServerChangeToken?, Bool, (any Error)?) -> Void)?

    public override init() {}

    public convenience init(previousServerChangeToken: CKServerChangeToken?) {
        self.init()
        self.previousServerChangeToken = previousServerChangeToken
    }

    override func execute() async {
        do {
            var token = previousServerChangeToken
            while true {
                guard !isCancelled else { throw CancellationError() }
                let page = try await targetDatabase.databaseChanges(since: token, resultsLimit: resultsLimit > 0 ? resultsLimit : nil)
                for modification in page.modifications { recordZoneWithIDChangedBlock?(modification.zoneID) }
                for deletion in page.deletions {
                    switch deletion.reason {
                    case .deleted: recordZoneWithIDWasDeletedBlock?(deletion.zoneID)
                    case .purged: recordZoneWithIDWasPurgedBlock?(deletion.zoneID)
                    case .encryptedDataReset: recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock?(deletion.zoneID)
                    }
                }
                token = page.changeToken
                guard page.moreComing, fetchAllChanges else {
                    fetchDatabaseChangesResultBlock?(.success((page.changeToken, page.moreComing)))
                    fetchDatabaseChangesCompletionBlock?(page.changeToken, page.moreComing, nil)
                    return
                }
                changeTokenUpdatedBlock?(page.changeToken)
            }
        } catch {
            let error = reported(error)
            fetchDatabaseChangesResultBlock?(.failure(error))
            fetchDatabaseChangesCompletionBlock?(nil, false, error)
        }
    }
}

/// The records of zones that changed since each zone's token: each record goes to `recordWasChangedBlock` (or
/// `recordChangedBlock`), each deletion to `recordWithIDWasDeletedBlock`, each zone's end to
/// `recordZoneFetchResultBlock` (or `recordZoneFetchCompletionBlock`), then the operation ends.
open class CKFetchRecordZoneChangesOperation: CKDatabaseOperation, @unchecked Sendable {
    /// Where and what to fetch in one zone.
    open class ZoneConfiguration: NSObject, @unchecked Sendable {
        open var previousServerChangeToken: CKServerChangeToken?
        open var resultsLimit = 0
        open var desiredKeys: [CKRecord.FieldKey]?

        public override init() {}

        public convenience init(previousServerChangeToken: CKServerChangeToken?, resultsLimit: Int, desiredKeys: [CKRecord.FieldKey]?) {
            self.init()
            self.previousServerChangeToken = previousServerChangeToken
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
        }
    }

    open var recordZoneIDs: [CKRecordZone.ID]?
    open var configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]?
    open var fetchAllChanges = true

    open var recordWasChangedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    open var recordWithIDWasDeletedBlock: ((CKRecord.ID, CKRecord.RecordType) -> Void)?
    open var recordZoneChangeTokensUpdatedBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?) -> Void)?
    open var recordZoneFetchResultBlock: ((CKRecordZone.ID, Result<(serverChangeToken: CKServerChangeToken, clientChangeTokenData: Data?, moreComing: Bool), any Error>) -> Void)?
    open var fetchRecordZoneChangesResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``recordWasChangedBlock``.
    open var recordChangedBlock: ((CKRecord) -> Void)?
    /// CloudKit's older form of ``recordZoneFetchResultBlock``.
    open var recordZoneFetchCompletionBlock: ((CKRecordZone.ID, CKServerChangeToken?, Data?, Bool, (any Error)?) -> Void)?
    /// CloudKit's older form of ``fetchRecordZoneChangesResultBlock``.
    open var fetchRecordZoneChangesCompletionBlock: (((any Error)?) -> Void)?

    public override init() {}

    public convenience init(recordZoneIDs: [CKRecordZone.ID], configurationsByRecordZoneID: [CKRecordZone.ID: ZoneConfiguration]? = nil) {
        self.init()
        self.recordZoneIDs = recordZoneIDs
        self.configurationsByRecordZoneID = configurationsByRecordZoneID
    }

    override func execute() async {
        var failed: [AnyHashable: any Error] = [:]
        do {
            for zoneID in recordZoneIDs ?? [] {
                guard !isCancelled else { throw CancellationError() }
                do {
                    try await fetch(zoneID)
                } catch let error as CKError where [.zoneNotFound, .userDeletedZone, .changeTokenExpired, .permissionFailure].contains(error.code) {
                    failed[zoneID] = error
                    recordZoneFetchResultBlock?(zoneID, .failure(error))
                    recordZoneFetchCompletionBlock?(zoneID, nil, nil, false, error)
                }
            }
            let error = CKError.partialFailure(failed, "zones could not be fetched")
            fetchRecordZoneChangesResultBlock?(error.operationResult)
            fetchRecordZoneChangesCompletionBlock?(error)
        } catch {
            let error = reported(error)
            fetchRecordZoneChangesResultBlock?(.failure(error))
            fetchRecordZoneChangesCompletionBlock?(error)
        }
    }

    private func fetch(_ zoneID: CKRecordZone.ID) async throws {
        let configuration = configurationsByRecordZoneID?[zoneID]
        var token = configuration?.previousServerChangeToken
        let limit = (configuration?.resultsLimit ?? 0) > 0 ? configuration?.resultsLimit : nil
        while true {
            guard !isCancelled else { throw CancellationError() }
            let page = try await targetDatabase.recordZoneChanges(inZoneWith: zoneID, since: token, desiredKeys: configuration?.desiredKeys, resultsLimit: limit)
            for (id, result) in page.modificationResultsByID {
                let record = result.map(\.record)
                recordWasChangedBlock?(id, record)
                if case .success(let changed) = record { recordChangedBlock?(changed) }
            }
            for deletion in page.deletions { recordWithIDWasDeletedBlock?(deletion.recordID, deletion.recordType) }
            token = page.changeToken
            guard page.moreComing, fetchAllChanges else {
                recordZoneFetchResultBlock?(zoneID, .success((page.changeToken, nil, page.moreComing)))
                recordZoneFetchCompletionBlock?(zoneID, page.changeToken, nil, page.moreComing, nil)
                return
            }
            recordZoneChangeTokensUpdatedBlock?(zoneID, page.changeToken, nil)
        }
    }
}
