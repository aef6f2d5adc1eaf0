import StratusModel

/// A page of a `records/query` answer, read loosely: field values stay as the server wrote them, so that an
/// import copies them as they are.
struct QueryPage: Decodable, Sendable {
    var records: [WireRecord]
    var continuationMarker: String?
}

/// One record of an answer, or the error that took its place.
struct WireRecord: Decodable, Sendable {
    var recordName: String
    var recordType: String?
    var fields: [String: FieldInput]?
    var created: RecordStamp?
    var modified: RecordStamp?
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
