/// A record dictionary as a client sends it in `records/modify`.
public struct RecordInput: Sendable, Hashable, Decodable {
    public var recordName: String?
    public var recordType: String?
    public var recordChangeTag: String?
    /// `nil` when the client sent no `fields` key; a field whose value is `null` is removed.
    public var fields: [String: FieldInput]?

    public init(recordName: String? = nil, recordType: String? = nil, recordChangeTag: String? = nil, fields: [String: FieldInput]? = nil) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
    }
}

/// The kind of a `records/modify` operation (`ckws-protocol.md` §3).
public enum RecordOperationType: String, Sendable, Hashable, CaseIterable, Codable {
    case create, update, forceUpdate, replace, forceReplace, delete, forceDelete

    /// Whether the operation must carry the current `recordChangeTag`.
    public var requiresChangeTag: Bool {
        self == .update || self == .replace || self == .delete
    }

    /// Whether the operation removes the record.
    public var isDelete: Bool { self == .delete || self == .forceDelete }
}

/// One operation of a `records/modify` request.
public struct RecordOperationInput: Sendable, Hashable, Decodable {
    public var operationType: RecordOperationType
    public var record: RecordInput
    public var desiredKeys: [String]?
}

/// The `records/modify` request body.
public struct ModifyRecordsRequest: Sendable, Hashable, Decodable {
    public var operations: [RecordOperationInput]
    public var zoneID: ZoneID?
    public var atomic: Bool?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?
}

/// The `records/lookup` request body.
public struct LookupRecordsRequest: Sendable, Hashable, Decodable {
    public struct Item: Sendable, Hashable, Decodable {
        public var recordName: String
        public var desiredKeys: [String]?
    }
    public var records: [Item]
    public var zoneID: ZoneID?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?
}

/// A query filter as a client sends it.
public struct FilterInput: Sendable, Hashable, Codable {
    public var comparator: String
    public var fieldName: String?
    public var systemFieldName: String?
    public var fieldValue: FieldInput?
    public var distance: Double?

    public init(comparator: String, fieldName: String? = nil, systemFieldName: String? = nil, fieldValue: FieldInput? = nil, distance: Double? = nil) {
        self.comparator = comparator
        self.fieldName = fieldName
        self.systemFieldName = systemFieldName
        self.fieldValue = fieldValue
        self.distance = distance
    }
}

/// A sort descriptor as a client sends it.
public struct SortInput: Sendable, Hashable, Codable {
    public var fieldName: String?
    public var systemFieldName: String?
    public var ascending: Bool?
    public var relativeLocation: FieldInput?

    public init(fieldName: String? = nil, systemFieldName: String? = nil, ascending: Bool? = nil, relativeLocation: FieldInput? = nil) {
        self.fieldName = fieldName
        self.systemFieldName = systemFieldName
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }
}

/// The `query` dictionary of `records/query`.
public struct QueryInput: Sendable, Hashable, Codable {
    public var recordType: String
    public var filterBy: [FilterInput]?
    public var sortBy: [SortInput]?

    public init(recordType: String, filterBy: [FilterInput]? = nil, sortBy: [SortInput]? = nil) {
        self.recordType = recordType
        self.filterBy = filterBy
        self.sortBy = sortBy
    }
}

/// The `records/query` request body.
public struct QueryRecordsRequest: Sendable, Hashable, Decodable {
    public var query: QueryInput
    public var zoneID: ZoneID?
    public var zoneWide: Bool?
    public var resultsLimit: Int?
    public var continuationMarker: String?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?
}
