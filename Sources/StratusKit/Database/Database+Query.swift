import Foundation
internal import StratusModel

/// Queries, page by page or as one sequence.
extension Database {
    /// The first page of a query's results.
    /// - Parameters:
    ///   - zoneID: the zone to search; `nil` searches the default zone (and, in the public database, the database).
    ///   - resultsLimit: at most this many records (1...200).
    /// - Returns: the records, and a cursor when more match.
    public func records(
        matching query: Query, inZoneWith zoneID: Zone.ID? = nil, desiredKeys: [String]? = nil, resultsLimit: Int = 200
    ) async throws -> (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?) {
        try await page(query: query, zoneID: zoneID, marker: nil, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    /// The next page of a query.
    public func records(
        continuingMatchFrom cursor: Query.Cursor, desiredKeys: [String]? = nil, resultsLimit: Int = 200
    ) async throws -> (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?) {
        try await page(query: cursor.query, zoneID: cursor.zoneID, marker: cursor.marker, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    /// Every record matching a query, fetched a page at a time as the sequence is iterated.
    ///
    /// ```swift
    /// for try await message in database.allRecords(matching: Query(recordType: "Message")) {
    ///     print(message["text"] as String? ?? "")
    /// }
    /// ```
    public func allRecords(matching query: Query, inZoneWith zoneID: Zone.ID? = nil, desiredKeys: [String]? = nil) -> QueryResults {
        QueryResults(database: self, query: query, zoneID: zoneID, desiredKeys: desiredKeys)
    }

    private func page(
        query: Query, zoneID: Zone.ID?, marker: String?, desiredKeys: [String]?, resultsLimit: Int
    ) async throws -> (matchResults: [(Record.ID, Result<Record, any Error>)], queryCursor: Query.Cursor?) {
        let request = QueryRecordsRequest(
            query: query.model, zoneID: zoneID?.model, resultsLimit: max(1, min(resultsLimit, 200)), continuationMarker: marker,
            desiredKeys: desiredKeys
        )
        let answer = try await container.post(databaseScope, "records/query", request, answer: RecordsResponse.self)
        let results: [(Record.ID, Result<Record, any Error>)] = try answer.records.map { entry in
            let record = try self.record(from: entry, sent: nil)
            return (record.recordID, .success(record))
        }
        let cursor = answer.continuationMarker.map { Query.Cursor(query: query, zoneID: zoneID, marker: $0) }
        return (results, cursor)
    }
}

/// The records matching a query, fetched lazily page by page (``Database/allRecords(matching:inZoneWith:desiredKeys:)``).
public struct QueryResults: AsyncSequence, Sendable {
    public typealias Element = Record
    let database: Database
    let query: Query
    let zoneID: Zone.ID?
    let desiredKeys: [String]?

    public func makeAsyncIterator() -> Iterator {
        Iterator(results: self)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let results: QueryResults
        var buffer: [Record] = []
        var cursor: Query.Cursor?
        var started = false

        public mutating func next() async throws -> Record? {
            while buffer.isEmpty {
                if started && cursor == nil { return nil }
                let page = if let cursor {
                    try await results.database.records(continuingMatchFrom: cursor, desiredKeys: results.desiredKeys)
                } else {
                    try await results.database.records(matching: results.query, inZoneWith: results.zoneID, desiredKeys: results.desiredKeys)
                }
                started = true
                cursor = page.queryCursor
                buffer = try page.matchResults.map { try $0.1.get() }.reversed()
            }
            return buffer.popLast()
        }
    }
}
