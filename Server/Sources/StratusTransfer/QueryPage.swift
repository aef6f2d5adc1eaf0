import StratusModel

/// A page of a `records/query` answer, read loosely: field values stay as the server wrote them, so that an
/// import copies them as they are.
struct QueryPage: Decodable, Sendable {
    var records: [WireRecord]
    var continuationMarker: String?
}

/// One record of an answer, or the error that took its place (or, in a change feed, its deletion).
struct WireRecord: Decodable, Sendable {
    /// `{recordName}`, as `parent` and `share` are written.
    struct NameRef: Decodable, Sendable {
        var recordName: String
    }

    var recordName: String
    var recordType: String?
    var fields: [String: FieldInput]?
    var created: RecordStamp?
    var modified: RecordStamp?
    var parent: NameRef?
    /// The share covering a shared root.
    var share: NameRef?
    var shortGUID: String?
    /// A share record's public permission and participants (the owner first).
    var publicPermission: SharePermission?
    var participants: [ShareParticipant]?
    var deleted: Bool?
    var serverErrorCode: String?
    var reason: String?
}

/// The `records/query` request an import sends: every record of a type, a page at a time.
struct TypeQuery: Encodable {
    struct Query: Encodable {
        var recordType: String
    }
    var query: Query
    var resultsLimit: Int
    var continuationMarker: String?
    var desiredKeys: [String]?
}

/// The `records/lookup` request an import sends for records that changed: their names.
struct NameLookup: Encodable {
    struct Name: Encodable {
        var recordName: String
    }
    var records: [Name]
}

/// The `records/modify` request an import sends to remove records deleted at the source.
struct ForceDeletes: Encodable {
    struct Operation: Encodable {
        var operationType = "forceDelete"
        var record: NameLookup.Name
    }
    var operations: [Operation]
}
