/// The body of `POST /admin/1/{container}/{environment}/records/import`: records copied from another server
/// into the public database, keeping their names and their creation and modification stamps.
public struct ImportRecordsRequest: Sendable, Hashable, Codable {
    public var records: [ImportedRecord]

    public init(records: [ImportedRecord]) {
        self.records = records
    }
}

/// One record as the source server answered it, its asset values carrying the receipts of their copies.
public struct ImportedRecord: Sendable, Hashable, Codable {
    public var recordName: String
    public var recordType: String
    public var fields: [String: FieldInput]
    public var created: RecordStamp
    public var modified: RecordStamp

    public init(recordName: String, recordType: String, fields: [String: FieldInput], created: RecordStamp, modified: RecordStamp) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.created = created
        self.modified = modified
    }
}
