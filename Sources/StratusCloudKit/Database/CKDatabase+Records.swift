import Foundation
import StratusKit

extension CKDatabase {
    /// The record with this ID; `unknownItem` when there is none.
    public func record(for recordID: CKRecord.ID) async throws -> CKRecord {
        try await delivered(try await call { try await $0.record(for: recordID.stratus) })
    }

    /// Records by ID, each with its own result.
    public func records(for ids: [CKRecord.ID], desiredKeys: [CKRecord.FieldKey]? = nil) async throws -> [CKRecord.ID: Result<CKRecord, any Error>] {
        let results = try await call { try await $0.records(for: ids.map(\.stratus), desiredKeys: desiredKeys) }
        var answer: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for id in ids {
            if let result = results[id.stratus] {
                answer[id] = await delivered(result)
            } else {
                answer[id] = .failure(CKError(.unknownItem))
            }
        }
        return answer
    }

    /// Saves a record: creates it, or saves the changes of the version it was fetched as (`serverRecordChanged`
    /// when the server's is newer). Answers the record as the server keeps it.
    public func save(_ record: CKRecord) async throws -> CKRecord {
        let results = try await modifyRecords(saving: [record], deleting: [])
        return try results.saveResults[record.recordID]!.get()
    }

    /// Deletes a record (and what references it with `deleteSelf`).
    public func deleteRecord(withID recordID: CKRecord.ID) async throws -> CKRecord.ID {
        let results = try await modifyRecords(saving: [], deleting: [recordID])
        try results.deleteResults[recordID]!.get()
        return recordID
    }

    /// Saves and deletes records, each with its own result; `atomically` keeps a custom zone's changes all or
    /// none; `savePolicy` says how a save treats the server's version. A change of a zone that does not exist fails
    /// with `zoneNotFound`.
    public func modifyRecords(
        saving recordsToSave: [CKRecord], deleting recordIDsToDelete: [CKRecord.ID],
        savePolicy: CKModifyRecordsOperation.RecordSavePolicy = .ifServerRecordUnchanged, atomically: Bool = true
    ) async throws -> (saveResults: [CKRecord.ID: Result<CKRecord, any Error>], deleteResults: [CKRecord.ID: Result<Void, any Error>]) {
        let results = try await call {
            try await $0.modifyRecords(
                saving: recordsToSave.map(\.stratus), deleting: recordIDsToDelete.map(\.stratus), savePolicy: savePolicy.stratus,
                atomically: atomically
            )
        }
        var saves: [CKRecord.ID: Result<CKRecord, any Error>] = [:]
        for record in recordsToSave {
            saves[record.recordID] = results.saveResults[record.recordID.stratus].map { cloudKitResult($0, CKRecord.made) }
                ?? .failure(CKError(.internalError))
        }
        var deletes: [CKRecord.ID: Result<Void, any Error>] = [:]
        for id in recordIDsToDelete {
            deletes[id] = results.deleteResults[id.stratus].map { cloudKitResult($0, { $0 }) } ?? .failure(CKError(.internalError))
        }
        return (saves, deletes)
    }

    // MARK: - Completion handlers

    public func fetch(withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.record(for: recordID) }
    }

    public func save(_ record: CKRecord, completionHandler: @escaping @Sendable (CKRecord?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.save(record) }
    }

    public func delete(withRecordID recordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.deleteRecord(withID: recordID) }
    }
}
