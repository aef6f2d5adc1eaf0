import Foundation
import StratusKit

/// One page of a query's results: records are handed to `recordMatchedBlock` (or `recordFetchedBlock`) as they
/// come, then `queryResultBlock` (or `queryCompletionBlock`) gets a cursor when more match.
open class CKQueryOperation: CKDatabaseOperation, @unchecked Sendable {
    public typealias Cursor = CKQueryCursor

    /// As many as the server sends in a page.
    public static let maximumResults = 0

    open var query: CKQuery?
    open var cursor: Cursor?
    open var zoneID: CKRecordZone.ID?
    open var resultsLimit = CKQueryOperation.maximumResults
    open var desiredKeys: [CKRecord.FieldKey]?

    open var recordMatchedBlock: ((CKRecord.ID, Result<CKRecord, any Error>) -> Void)?
    open var queryResultBlock: ((Result<Cursor?, any Error>) -> Void)?
    /// CloudKit's older form of ``recordMatchedBlock``: each record fetched.
    open var recordFetchedBlock: ((CKRecord) -> Void)?
    /// CloudKit's older form of ``queryResultBlock``.
    open var queryCompletionBlock: ((Cursor?, (any Error)?) -> Void)?

    public override init() {}

    public convenience init(query: CKQuery) {
        self.init()
        self.query = query
    }

    public convenience init(cursor: Cursor) {
        self.init()
        self.cursor = cursor
    }

    override func execute() async {
        do {
            guard !isCancelled else { throw CancellationError() }
            let limit = resultsLimit > 0 ? resultsLimit : 200
            let database = targetDatabase
            let page: (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?)
            if let cursor {
                page = try await database.call { try await $0.records(continuingMatchFrom: cursor.stratus, desiredKeys: desiredKeys, resultsLimit: limit) }
            } else if let query {
                let translated = try query.stratus()
                page = try await database.call { try await $0.records(matching: translated, inZoneWith: zoneID?.stratus, desiredKeys: desiredKeys, resultsLimit: limit) }
            } else {
                throw CKError(.invalidArguments, userInfo: [NSLocalizedDescriptionKey: "a query operation needs a query or a cursor"])
            }
            for (id, record) in await database.deliveredResults(page.matchResults) {
                recordMatchedBlock?(id, record)
                if case .success(let found) = record { recordFetchedBlock?(found) }
            }
            finish(.success(page.queryCursor.map(Cursor.init)))
        } catch {
            finish(.failure(reported(error)))
        }
    }

    private func finish(_ result: Result<Cursor?, any Error>) {
        queryResultBlock?(result)
        switch result {
        case .success(let cursor): queryCompletionBlock?(cursor, nil)
        case .failure(let error): queryCompletionBlock?(nil, error)
        }
    }
}
