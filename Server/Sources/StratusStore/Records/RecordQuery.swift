import StratusModel

/// A query as the store runs it.
public struct RecordQuery: Sendable, Hashable {
    public var database: DatabaseRef
    /// The zones to search; `nil` searches every zone of the database (`zoneWide`).
    public var zoneName: String?
    public var query: QueryInput
    /// 1...200.
    public var limit: Int
    /// The `continuationMarker` of the previous page.
    public var continuationMarker: String?
    /// Only records created by this user: set when the caller may read only their own (`_creator`).
    public var createdBy: String?
    /// Only these shared roots and the records beneath them: set for a participant of record shares.
    public var sharedRoots: [String]?

    public init(
        database: DatabaseRef, zoneName: String?, query: QueryInput, limit: Int, continuationMarker: String?, createdBy: String? = nil,
        sharedRoots: [String]? = nil
    ) {
        self.sharedRoots = sharedRoots
        self.database = database
        self.zoneName = zoneName
        self.query = query
        self.limit = limit
        self.continuationMarker = continuationMarker
        self.createdBy = createdBy
    }
}

/// One page of query results.
public struct QueryPage: Sendable {
    public var records: [Record]
    /// Present when more records match; send it back with the same query for the next page.
    public var continuationMarker: String?

    public init(records: [Record], continuationMarker: String?) {
        self.records = records
        self.continuationMarker = continuationMarker
    }
}
