import StratusModel

/// One record operation, validated for shape but not yet typed against the schema.
public struct RecordOperation: Sendable, Hashable {
    public var type: RecordOperationType
    public var recordName: String
    public var recordType: String?
    public var recordChangeTag: String?
    /// The fields sent; `nil` when the client sent none. A `null` value removes a field.
    public var fields: [String: FieldInput]?
    /// What the operation does to the record's parent.
    public var parent: ParentInput
    /// For share records (`cloudkit.share`): the root, public permission and participants sent.
    public var share: ShareChange?
    /// Gives the record a `shortGUID` if it has none (`createShortGUID: true`).
    public var createShortGUID: Bool
    /// Set by an operator's import only (never by a client): the record keeps the source's creation and
    /// modification stamps and short GUID, may be a `Users` record, and its `VALIDATE` references are not checked
    /// (their targets may come later in the same import).
    public var imported: ImportedMetadata?

    public init(
        type: RecordOperationType, recordName: String, recordType: String? = nil, recordChangeTag: String? = nil,
        fields: [String: FieldInput]? = nil, parent: ParentInput = .unchanged, share: ShareChange? = nil,
        createShortGUID: Bool = false, imported: ImportedMetadata? = nil
    ) {
        self.type = type
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.parent = parent
        self.share = share
        self.createShortGUID = createShortGUID
        self.imported = imported
    }
}

/// What an imported record keeps from the server it was copied from.
public struct ImportedMetadata: Sendable, Hashable {
    public var created: RecordStamp
    public var modified: RecordStamp
    /// The record's short GUID (a shared root's, or a zone-wide share's), so that share links stay valid.
    public var shortGUID: String?

    public init(created: RecordStamp, modified: RecordStamp, shortGUID: String? = nil) {
        self.created = created
        self.modified = modified
        self.shortGUID = shortGUID
    }
}

/// A batch of record operations in one zone, as one `records/modify` request.
public struct RecordBatch: Sendable, Hashable {
    public var zone: ZoneRef
    public var operations: [RecordOperation]
    /// All-or-nothing; honoured in custom zones only, as in CloudKit.
    public var atomic: Bool
    /// Must be signed in: anonymous callers cannot write.
    public var caller: Caller
    /// The time of the write, milliseconds since 1970.
    public var timestamp: Int64

    public init(zone: ZoneRef, operations: [RecordOperation], atomic: Bool, caller: Caller, timestamp: Int64) {
        self.zone = zone
        self.operations = operations
        self.atomic = atomic
        self.caller = caller
        self.timestamp = timestamp
    }
}

/// The outcome of one record operation.
public enum RecordOperationResult: Sendable {
    case saved(Record)
    case deleted(DeletedRecord)
    case failed(RecordFailure)
}

/// A failed record operation. For `CONFLICT` it carries the current server record so a client can merge.
public struct RecordFailure: Sendable {
    public var recordName: String
    public var error: StorageError
    public var serverRecord: Record?

    public init(recordName: String, error: StorageError, serverRecord: Record? = nil) {
        self.recordName = recordName
        self.error = error
        self.serverRecord = serverRecord
    }
}
