/// A record dictionary as a client sends it in `records/modify`.
public struct RecordInput: Sendable, Hashable, Codable {
    public var recordName: String?
    public var recordType: String?
    public var recordChangeTag: String?
    /// `nil` when the client sent no `fields` key; a field whose value is `null` is removed.
    public var fields: [String: FieldInput]?
    /// `{recordName}` sets the record's parent, `null` removes it, and no key keeps it.
    public var parent: ParentInput
    /// Share records: the root record the share is for.
    public var forRecord: RecordNameInput?
    /// Share records: `NONE`, `READ_ONLY` or `READ_WRITE`.
    public var publicPermission: String?
    /// Share records: everyone the share is for, the owner aside. Participants left out are removed.
    public var participants: [ParticipantInput]?
    /// Asked of root records before sharing; every shared root gets a short GUID anyway.
    public var createShortGUID: Bool?

    public init(
        recordName: String? = nil, recordType: String? = nil, recordChangeTag: String? = nil, fields: [String: FieldInput]? = nil,
        parent: ParentInput = .unchanged, forRecord: RecordNameInput? = nil, publicPermission: String? = nil,
        participants: [ParticipantInput]? = nil, createShortGUID: Bool? = nil
    ) {
        self.createShortGUID = createShortGUID
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.parent = parent
        self.forRecord = forRecord
        self.publicPermission = publicPermission
        self.participants = participants
    }

    private enum CodingKeys: String, CodingKey {
        case recordName, recordType, recordChangeTag, fields, parent, forRecord, publicPermission, participants, createShortGUID
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordName = try container.decodeIfPresent(String.self, forKey: .recordName)
        recordType = try container.decodeIfPresent(String.self, forKey: .recordType)
        recordChangeTag = try container.decodeIfPresent(String.self, forKey: .recordChangeTag)
        fields = try container.decodeIfPresent([String: FieldInput].self, forKey: .fields)
        if !container.contains(.parent) {
            parent = .unchanged
        } else if try container.decodeNil(forKey: .parent) {
            parent = .removed
        } else {
            parent = .set(try container.decode(RecordNameInput.self, forKey: .parent).recordName)
        }
        forRecord = try container.decodeIfPresent(RecordNameInput.self, forKey: .forRecord)
        publicPermission = try container.decodeIfPresent(String.self, forKey: .publicPermission)
        participants = try container.decodeIfPresent([ParticipantInput].self, forKey: .participants)
        createShortGUID = try container.decodeIfPresent(Bool.self, forKey: .createShortGUID)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(recordName, forKey: .recordName)
        try container.encodeIfPresent(recordType, forKey: .recordType)
        try container.encodeIfPresent(recordChangeTag, forKey: .recordChangeTag)
        try container.encodeIfPresent(fields, forKey: .fields)
        switch parent {
        case .unchanged: break
        case .removed: try container.encodeNil(forKey: .parent)
        case .set(let name): try container.encode(RecordNameInput(recordName: name), forKey: .parent)
        }
        try container.encodeIfPresent(forRecord, forKey: .forRecord)
        try container.encodeIfPresent(publicPermission, forKey: .publicPermission)
        try container.encodeIfPresent(participants, forKey: .participants)
        try container.encodeIfPresent(createShortGUID, forKey: .createShortGUID)
    }
}

/// What a save does to a record's parent.
public enum ParentInput: Sendable, Hashable {
    case unchanged
    case removed
    case set(String)
}

/// `{recordName, recordChangeTag?}`: a record named by another one.
public struct RecordNameInput: Sendable, Hashable, Codable {
    public var recordName: String
    public var recordChangeTag: String?

    public init(recordName: String, recordChangeTag: String? = nil) {
        self.recordName = recordName
        self.recordChangeTag = recordChangeTag
    }
}

/// A Share Participant dictionary as an owner sends it.
public struct ParticipantInput: Sendable, Hashable, Codable {
    public struct Identity: Sendable, Hashable, Codable {
        public var userRecordName: String?
        public var lookupInfo: UserLookupInfo?

        public init(userRecordName: String? = nil, lookupInfo: UserLookupInfo? = nil) {
            self.userRecordName = userRecordName
            self.lookupInfo = lookupInfo
        }
    }

    public var participantId: String?
    public var userIdentity: Identity?
    public var permission: String?
    public var type: String?
    /// Kept by the server: a participant's status changes only by accepting or leaving.
    public var acceptanceStatus: String?

    public init(participantId: String? = nil, userIdentity: Identity? = nil, permission: String? = nil, type: String? = nil) {
        self.participantId = participantId
        self.userIdentity = userIdentity
        self.permission = permission
        self.type = type
    }
}

/// The kind of a `records/modify` operation (`docs/protocol.md#modifying-records`).
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
public struct RecordOperationInput: Sendable, Hashable, Codable {
    public var operationType: RecordOperationType
    public var record: RecordInput
    public var desiredKeys: [String]?

    public init(operationType: RecordOperationType, record: RecordInput, desiredKeys: [String]? = nil) {
        self.operationType = operationType
        self.record = record
        self.desiredKeys = desiredKeys
    }
}

/// The `records/modify` request body.
public struct ModifyRecordsRequest: Sendable, Hashable, Codable {
    public var operations: [RecordOperationInput]
    public var zoneID: ZoneID?
    public var atomic: Bool?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    public init(operations: [RecordOperationInput], zoneID: ZoneID? = nil, atomic: Bool? = nil, desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil) {
        self.operations = operations
        self.zoneID = zoneID
        self.atomic = atomic
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }
}

/// The `records/lookup` request body.
public struct LookupRecordsRequest: Sendable, Hashable, Codable {
    public struct Item: Sendable, Hashable, Codable {
        public var recordName: String
        public var desiredKeys: [String]?

        public init(recordName: String, desiredKeys: [String]? = nil) {
            self.recordName = recordName
            self.desiredKeys = desiredKeys
        }
    }
    public var records: [Item]
    public var zoneID: ZoneID?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    public init(records: [Item], zoneID: ZoneID? = nil, desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil) {
        self.records = records
        self.zoneID = zoneID
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }
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
public struct QueryRecordsRequest: Sendable, Hashable, Codable {
    public var query: QueryInput
    public var zoneID: ZoneID?
    public var zoneWide: Bool?
    public var resultsLimit: Int?
    public var continuationMarker: String?
    public var desiredKeys: [String]?
    public var numbersAsStrings: Bool?

    public init(
        query: QueryInput, zoneID: ZoneID? = nil, zoneWide: Bool? = nil, resultsLimit: Int? = nil, continuationMarker: String? = nil,
        desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil
    ) {
        self.query = query
        self.zoneID = zoneID
        self.zoneWide = zoneWide
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
    }
}
