import StratusModel

/// What a record batch changes, decided by ``RecordEngine``: a backend applies ``writes`` in order in one
/// transaction, stores ``schema`` if set, and answers ``results``.
public struct WritePlan: Sendable {
    /// One result per operation, in order.
    public var results: [RecordOperationResult] = []
    public var writes: [PlannedWrite] = []
    /// The schema with the record types and fields the batch added (development), when it changed.
    public var schema: Schema?
    /// The committed changes as subscriptions see them.
    public var events: [RecordEvent] = []
    /// How many change sequence numbers the plan used, from the first one it was given.
    public var sequencesUsed: Int64 = 0

    public init() {}
}

/// One change to storage.
public enum PlannedWrite: Sendable {
    /// Inserts or replaces a record's row with its index entries, references and asset holdings.
    case saveRecord(PlannedRecord)
    /// Turns a live record into a tombstone and drops what it held.
    case deleteRecord(key: RecordKey, sequence: Int64, modified: RecordStamp)
    /// Gives a record a short GUID (`createShortGUID`), keeping its change tag.
    case setShortGUID(RecordKey, String)
    /// Records which share a root belongs to, or that it no longer belongs to one, as a change of the root.
    case markShareRoot(RecordKey, share: String?, shortGUID: String?, sequence: Int64)
    /// Creates the share of a share record just saved.
    case createShare(shareRecord: String, rootRecordName: String?, publicPermission: SharePermission)
    /// Changes a share's public permission; public users' access follows it (a change for them too).
    case setPublicPermission(shareRecord: String, SharePermission, sequence: Int64)
    case addParticipant(shareRecord: String, ShareParticipant, sequence: Int64)
    case setParticipantPermission(shareRecord: String, participantID: String, SharePermission, sequence: Int64)
    case removeParticipant(shareRecord: String, participantID: String, sequence: Int64)
    /// A participant leaves a share (deletes the share record from their side).
    case leaveShare(shareRecord: String, userRecordName: String, sequence: Int64)
    /// Ends a share whose record was deleted: its participants are removed.
    case removeShare(shareRecord: String, sequence: Int64)
}

/// A record row to write, with everything stored beside it.
public struct PlannedRecord: Sendable {
    public var key: RecordKey
    public var type: String
    public var changeTag: String
    public var sequence: Int64
    public var fields: EncodedFields
    public var created: RecordStamp
    public var modified: RecordStamp
    public var parent: String?
    public var share: String?
    public var shortGUID: String?
    /// Every index entry, compound ones included.
    public var indexEntries: [IndexEntry]
    /// References that delete the record along with, or guard, their targets.
    public var references: [ReferenceEdge]
    /// The assets its fields hold, by field.
    public var assets: [(field: String, assetID: String)]
    /// Receipts the save used, by field.
    public var usedReceipts: [(receipt: String, field: String)]
    /// Whether a row (live or a tombstone) exists and is replaced.
    public var replacesRow: Bool
}
