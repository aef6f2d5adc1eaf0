/// The `zones/lookup` request body.
public struct LookupZonesRequest: Sendable, Hashable, Codable {
    public var zones: [ZoneID]

    public init(zones: [ZoneID]) {
        self.zones = zones
    }
}

/// The `zones/modify` request body.
public struct ModifyZonesRequest: Sendable, Hashable, Codable {
    public enum OperationType: String, Sendable, Hashable, Codable {
        case create, delete
    }
    public struct Operation: Sendable, Hashable, Codable {
        public struct Zone: Sendable, Hashable, Codable {
            public var zoneID: ZoneID

            public init(zoneID: ZoneID) {
                self.zoneID = zoneID
            }
        }
        public var operationType: OperationType
        public var zone: Zone

        public init(operationType: OperationType, zone: Zone) {
            self.operationType = operationType
            self.zone = zone
        }
    }
    public var operations: [Operation]

    public init(operations: [Operation]) {
        self.operations = operations
    }
}

/// The `changes/database` request body.
public struct DatabaseChangesRequest: Sendable, Hashable, Codable {
    public var syncToken: String?
    public var resultsLimit: Int?

    public init(syncToken: String? = nil, resultsLimit: Int? = nil) {
        self.syncToken = syncToken
        self.resultsLimit = resultsLimit
    }
}

/// The `zones/changes` request body (the older form of `changes/database`).
public struct ZoneListChangesRequest: Sendable, Hashable, Codable {
    public var metaSyncToken: String?
    /// What some clients send in place of `metaSyncToken`.
    public var syncToken: String?
    public var resultsLimit: Int?
}

/// The `changes/zone` request body: per-zone settings with request-wide defaults.
public struct ZoneChangesRequest: Sendable, Hashable, Codable {
    public struct Item: Sendable, Hashable, Codable {
        public var zoneID: ZoneID
        public var syncToken: String?
        public var resultsLimit: Int?
        public var desiredKeys: [String]?
        public var desiredRecordTypes: [String]?
        /// Only records matching this query (a Stratus addition); records that no longer match come as deletions.
        public var query: QueryInput?

        public init(
            zoneID: ZoneID, syncToken: String? = nil, resultsLimit: Int? = nil, desiredKeys: [String]? = nil, desiredRecordTypes: [String]? = nil,
            query: QueryInput? = nil
        ) {
            self.zoneID = zoneID
            self.syncToken = syncToken
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
            self.desiredRecordTypes = desiredRecordTypes
            self.query = query
        }
    }
    public var zones: [Item]
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    public var desiredRecordTypes: [String]?
    public var numbersAsStrings: Bool?
    /// The reference's spelling of `numbersAsStrings` for this endpoint.
    public var numberAsStrings: Bool?

    public init(zones: [Item], resultsLimit: Int? = nil, desiredKeys: [String]? = nil) {
        self.zones = zones
        self.resultsLimit = resultsLimit
        self.desiredKeys = desiredKeys
    }
}

/// The `records/changes` request body (one custom zone).
public struct RecordChangesRequest: Sendable, Hashable, Codable {
    public var zoneID: ZoneID
    public var syncToken: String?
    public var resultsLimit: Int?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?
}
