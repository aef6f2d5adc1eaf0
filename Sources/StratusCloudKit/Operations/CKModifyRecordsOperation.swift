import Foundation
import StratusKit

/// Saves and deletes records in one request per zone; each record's result goes to `perRecordSaveBlock` and
/// `perRecordDeleteBlock`, then `modifyRecordsResultBlock` (or `modifyRecordsCompletionBlock`) ends the
/// operation, with `partialFailure` when some failed.
open class CKModifyRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    /// How a save treats the server's version of a record.
    public enum RecordSavePolicy: Int, Sendable {
        /// Saves only the version the record was fetched as (`serverRecordChanged` otherwise).
        case ifServerRecordUnchanged = 0
        /// Writes the changed fields whatever the server's version.
        case changedKeys = 1
        /// Writes every field whatever the server's version.
        case allKeys = 2

        var stratus: Database.SavePolicy {
            switch self {
            case .ifServerRecordUnchanged: .ifServerRecordUnchanged
            case .changedKeys: .changedKeys
            case .allKeys: .allKeys
            }
        }
    }

    open var recordsToSave: [CKRecord]?
    open var recordIDsToDelete: [CKRecord.ID]?
    open var savePolicy = RecordSavePolicy.ifServerRecordUnchanged
    /// All or none of a custom zone's changes.
    open var isAtomic = true
    open var clientChangeTokenData: Data?

    open var perRecordProgressBlock: ((CKRecord, Double) -> Void)?
    open var perRecordSaveBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    open var perRecordDeleteBlock: ((CKRecord.ID, Result<Void, any Error>) -> Void)?
    open var modifyRecordsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``perRecordSaveBlock``: the record as sent, and its error.
    open var perRecordCompletionBlock: ((CKRecord, (any Error)?) -> Void)?
    /// CloudKit's older form of ``modifyRecordsResultBlock``: the saved records and deleted IDs.
    open var modifyRecordsCompletionBlock: (([CKRecord]?, [CKRecord.ID]?, (any Error)?) -> Void)?

    public override init() {}

    public convenience init(recordsToSave: [CKRecord]?, recordIDsToDelete: [CKRecord.ID]?) {
        self.init()
        self.recordsToSave = recordsToSave
        self.recordIDsToDelete = recordIDsToDelete
    }

    override func execute() async {
        let saving = recordsToSave ?? []
        let deleting = recordIDsToDelete ?? []
        do {
            guard !isCancelled else { throw CancellationError() }
            let results = try await targetDatabase.modifyRecords(saving: saving, deleting: deleting, savePolicy: savePolicy, atomically: isAtomic)
            let sent = Dictionary(saving.map { ($0.recordID, $0) }, uniquingKeysWith: { $1 })
            let saves = ItemResults(saving.map(\.recordID), results.saveResults) { id, result in
                perRecordProgressBlock?(sent[id]!, 1)
                perRecordSaveBlock?(id, result)
                switch result {
                case .success(let saved): perRecordCompletionBlock?(saved, nil)
                case .failure(let error): perRecordCompletionBlock?(sent[id]!, error)
                }
            }
            let deletes = ItemResults(deleting, results.deleteResults) { perRecordDeleteBlock?($0, $1) }
            let failure = CKError.partialFailure(saves.failures.merging(deletes.failures) { $1 }, of: saving.count + deleting.count, "changes failed")
            modifyRecordsResultBlock?(failure.operationResult)
            modifyRecordsCompletionBlock?(saves.succeeded.map(\.value), deletes.succeeded.map(\.id), failure)
        } catch {
            let error = reported(error)
            modifyRecordsResultBlock?(.failure(error))
            modifyRecordsCompletionBlock?(nil, nil, error)
        }
    }
}

/// Fetches records by ID; each record's result goes to `perRecordResultBlock`, then `fetchRecordsResultBlock`
/// (or `fetchRecordsCompletionBlock`) ends the operation.
open class CKFetchRecordsOperation: CKDatabaseOperation, @unchecked Sendable {
    open var recordIDs: [CKRecord.ID]?
    open var desiredKeys: [CKRecord.FieldKey]?

    open var perRecordProgressBlock: ((CKRecord.ID, Double) -> Void)?
    open var perRecordResultBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    open var fetchRecordsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``perRecordResultBlock``.
    open var perRecordCompletionBlock: ((CKRecord?, CKRecord.ID?, (any Error)?) -> Void)?
    /// CloudKit's older form of ``fetchRecordsResultBlock``: the records fetched, by ID.
    open var fetchRecordsCompletionBlock: (([CKRecord.ID: CKRecord]?, (any Error)?) -> Void)?

    /// Fetches the signed-in user's record.
    private var fetchesCurrentUser = false

    public required override init() {}

    public convenience init(recordIDs: [CKRecord.ID]) {
        self.init()
        self.recordIDs = recordIDs
    }

    /// An operation that fetches the signed-in user's record.
    open class func fetchCurrentUserRecordOperation() -> Self {
        let operation = self.init()
        operation.fetchesCurrentUser = true
        return operation
    }

    override func execute() async {
        do {
            guard !isCancelled else { throw CancellationError() }
            let database = targetDatabase
            var ids = recordIDs ?? []
            if fetchesCurrentUser { ids = [try await database.container.userRecordID()] }
            let results = try await database.records(for: ids, desiredKeys: desiredKeys)
            let fetched = ItemResults(ids, results, missing: .unknownItem) { id, result in
                perRecordProgressBlock?(id, 1)
                perRecordResultBlock?(id, result)
                switch result {
                case .success(let record): perRecordCompletionBlock?(record, id, nil)
                case .failure(let error): perRecordCompletionBlock?(nil, id, error)
                }
            }
            let failure = CKError.partialFailure(fetched.failures, of: ids.count, "records could not be fetched")
            fetchRecordsResultBlock?(failure.operationResult)
            fetchRecordsCompletionBlock?(Dictionary(fetched.succeeded, uniquingKeysWith: { $1 }), failure)
        } catch {
            let error = reported(error)
            fetchRecordsResultBlock?(.failure(error))
            fetchRecordsCompletionBlock?(nil, error)
        }
    }
}
