import Foundation
import StratusKit

extension CKDatabase {
    /// The first page of a query's results, and a cursor when more match.
    public func records(
        matching query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?) {
        let translated = try query.stratus()
        let page = try await call {
            try await $0.records(matching: translated, inZoneWith: zoneID?.stratus, desiredKeys: desiredKeys, resultsLimit: resultsLimit > 0 ? resultsLimit : 200)
        }
        return (await deliveredResults(page.matchResults), page.queryCursor.map(CKQueryCursor.init))
    }

    /// The next page of a query.
    public func records(
        continuingMatchFrom queryCursor: CKQueryOperation.Cursor, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults
    ) async throws -> (matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?) {
        let page = try await call {
            try await $0.records(continuingMatchFrom: queryCursor.stratus, desiredKeys: desiredKeys, resultsLimit: resultsLimit > 0 ? resultsLimit : 200)
        }
        return (await deliveredResults(page.matchResults), page.queryCursor.map(CKQueryCursor.init))
    }

    /// A page's results as CloudKit hands them out, assets downloaded.
    func deliveredResults(_ results: [(Record.ID, Result<Record, any Error>)]) async -> [(CKRecord.ID, Result<CKRecord, any Error>)] {
        var delivered: [(CKRecord.ID, Result<CKRecord, any Error>)] = []
        for (id, result) in results {
            delivered.append((CKRecord.ID(id), await self.delivered(result)))
        }
        return delivered
    }

    /// Every record matching a query (CloudKit's older convenience call).
    public func perform(_ query: CKQuery, inZoneWith zoneID: CKRecordZone.ID?, completionHandler: @escaping @Sendable ([CKRecord]?, (any Error)?) -> Void) {
        complete(completionHandler) {
            var page = try await self.records(matching: query, inZoneWith: zoneID)
            var found = try page.matchResults.map { try $0.1.get() }
            while let cursor = page.queryCursor {
                page = try await self.records(continuingMatchFrom: cursor)
                found += try page.matchResults.map { try $0.1.get() }
            }
            return found
        }
    }

    /// A page of a query's results, for a completion handler.
    public func fetch(
        withQuery query: CKQuery, inZoneWith zoneID: CKRecordZone.ID? = nil, desiredKeys: [CKRecord.FieldKey]? = nil,
        resultsLimit: Int = CKQueryOperation.maximumResults,
        completionHandler: @escaping @Sendable (Result<(matchResults: [(CKRecord.ID, Result<CKRecord, any Error>)], queryCursor: CKQueryOperation.Cursor?), any Error>) -> Void
    ) {
        Task {
            do {
                completionHandler(.success(try await records(matching: query, inZoneWith: zoneID, desiredKeys: desiredKeys, resultsLimit: resultsLimit)))
            } catch {
                completionHandler(.failure(error))
            }
        }
    }
}
