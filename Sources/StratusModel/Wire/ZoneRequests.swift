/// The `zones/lookup` request body.
public struct LookupZonesRequest: Sendable, Hashable, Decodable {
    public var zones: [ZoneID]
}

/// The `zones/modify` request body.
public struct ModifyZonesRequest: Sendable, Hashable, Decodable {
    public enum OperationType: String, Sendable, Hashable, Decodable {
        case create, delete
    }
    public struct Operation: Sendable, Hashable, Decodable {
        public struct Zone: Sendable, Hashable, Decodable {
            public var zoneID: ZoneID
        }
        public var operationType: OperationType
        public var zone: Zone
    }
    public var operations: [Operation]
}

/// The `changes/database` request body.
public struct DatabaseChangesRequest: Sendable, Hashable, Decodable {
    public var syncToken: String?
    public var resultsLimit: Int?
}

/// The `zones/changes` request body (the older form of `changes/database`).
public struct ZoneListChangesRequest: Sendable, Hashable, Decodable {
    public var metaSyncToken: String?
    /// What some clients send in place of `metaSyncToken`.
    public var syncToken: String?
    public var resultsLimit: Int?
}

/// The `changes/zone` request body: per-zone settings with request-wide defaults.
public struct ZoneChangesRequest: Sendable, Hashable, Decodable {
    public struct Item: Sendable, Hashable, Decodable {
        public var zoneID: ZoneID
        public var syncToken: String?
        public var resultsLimit: Int?
        public var desiredKeys: [String]?
        public var desiredRecordTypes: [String]?
    }
    public var zones: [Item]
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    public var desiredRecordTypes: [String]?
    public var numbersAsStrings: Bool?
    /// The reference's spelling of `numbersAsStrings` for this endpoint.
    public var numberAsStrings: Bool?
}

/// The `records/changes` request body (one custom zone).
public struct RecordChangesRequest: Sendable, Hashable, Decodable {
    public var zoneID: ZoneID
    public var syncToken: String?
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?
}
