import StratusModel

/// A record in one zone of the batch's database, named by zone and record name.
public struct RecordKey: Sendable, Hashable, CustomStringConvertible {
    public var zoneName: String
    public var recordName: String

    public init(zoneName: String, recordName: String) {
        self.zoneName = zoneName
        self.recordName = recordName
    }

    public var description: String { "\(zoneName)/\(recordName)" }
}

/// A stored record as the engine sees it: a live record or a tombstone.
public struct StoredRecord: Sendable, Hashable {
    public var key: RecordKey
    public var type: String
    public var changeTag: String
    public var fields: EncodedFields
    public var created: RecordStamp
    public var modified: RecordStamp
    public var deleted: Bool
    public var parent: String?
    /// The share record of a shared root.
    public var share: String?
    public var shortGUID: String?

    public init(
        key: RecordKey, type: String, changeTag: String, fields: EncodedFields, created: RecordStamp, modified: RecordStamp,
        deleted: Bool = false, parent: String? = nil, share: String? = nil, shortGUID: String? = nil
    ) {
        self.key = key
        self.type = type
        self.changeTag = changeTag
        self.fields = fields
        self.created = created
        self.modified = modified
        self.deleted = deleted
        self.parent = parent
        self.share = share
        self.shortGUID = shortGUID
    }

    /// The record as clients see it, without share details.
    public func record(in database: DatabaseRef) -> Record {
        Record(
            recordName: key.recordName, recordType: type, recordChangeTag: changeTag, fields: fields, created: created,
            modified: modified, zoneID: database.wireZoneID(key.zoneName), parent: parent, share: share, shortGUID: shortGUID
        )
    }
}

/// A stored reference that keeps a record alive or deletes it along (`DELETE_SELF`) or guards it (`VALIDATE`).
public struct ReferenceEdge: Sendable, Hashable {
    public enum Action: Int, Sendable, Hashable {
        case deleteSelf = 1, validate = 2
    }

    public var source: RecordKey
    public var target: RecordKey
    public var action: Action

    public init(source: RecordKey, target: RecordKey, action: Action) {
        self.source = source
        self.target = target
        self.action = action
    }
}

/// A share of the batch's zone: what it shares and with whom.
public struct ShareState: Sendable, Hashable {
    /// `nil` for a zone-wide share.
    public var rootRecordName: String?
    public var publicPermission: SharePermission
    /// Participants not removed, in the order they were added.
    public var participants: [ShareParticipant]

    public init(rootRecordName: String?, publicPermission: SharePermission, participants: [ShareParticipant]) {
        self.rootRecordName = rootRecordName
        self.publicPermission = publicPermission
        self.participants = participants
    }
}

/// An unexpired receipt of a stored asset, and the record field that used it, if any.
public struct ReceiptState: Sendable, Hashable {
    public var asset: StoredAsset
    /// The field it was issued for; `nil` for any asset field.
    public var issuedFor: String?
    public var expiresAt: Int64
    public var usedBy: RecordKey?
    public var usedField: String?

    public init(asset: StoredAsset, issuedFor: String?, expiresAt: Int64, usedBy: RecordKey? = nil, usedField: String? = nil) {
        self.asset = asset
        self.issuedFor = issuedFor
        self.expiresAt = expiresAt
        self.usedBy = usedBy
        self.usedField = usedField
    }
}

/// What the rules of one record batch read from storage, loaded by the backend set by set as
/// ``RecordEngine`` asks for it (see ``SnapshotRequest``).
///
/// Each collection also says what was looked for and not found, so the engine can tell "absent" from
/// "not loaded yet".
public struct RecordSnapshot: Sendable {
    public var schema: Schema
    /// Rows found, live or tombstones, by zone and name.
    public var records: [RecordKey: StoredRecord] = [:]
    /// Names looked for that have no row.
    public var absentRecords: Set<RecordKey> = []
    /// Records whose whole chain of parents is in ``records`` (or ends at an absent record).
    public var ancestorsLoaded: Set<RecordKey> = []
    /// Stored `DELETE_SELF` and `VALIDATE` references into the records of ``referencesLoaded``.
    public var references: [RecordKey: [ReferenceEdge]] = [:]
    /// Records whose incoming references, and the rows of their `DELETE_SELF` sources, transitively, are loaded.
    public var referencesLoaded: Set<RecordKey> = []
    /// Zones of the database that were looked for, and whether each is live.
    public var zones: [String: Bool] = [:]
    /// Shares of the batch's zone by share record name; `nil` for one looked for and not found.
    public var shares: [String: ShareState?] = [:]
    /// The zone-wide share's record name and whether the zone holds any share; `nil` until loaded.
    public var zoneSharing: ZoneSharing?
    /// The names of every shared root of the batch's zone, with their ancestors in ``records``; `nil` until loaded.
    public var shareRoots: Set<String>?
    /// The shares of the batch's zone that the caller accepted; `nil` until loaded.
    public var callerAccess: ShareAccess?
    /// Receipts looked for; `nil` for one that is unknown, expired or whose asset is not stored.
    public var receipts: [String: ReceiptState?] = [:]
    /// User record names of the container looked for, and whether each has an account.
    public var users: [String: Bool] = [:]
    /// For each unique check looked for, the names of the live records of the batch's zone holding its value.
    public var uniqueHolders: [UniqueProbe: Set<String>] = [:]

    public init(schema: Schema) {
        self.schema = schema
    }

    /// Whether a zone has a zone-wide share or any share.
    public struct ZoneSharing: Sendable, Hashable {
        public var zoneShare: String?
        public var hasShares: Bool

        public init(zoneShare: String?, hasShares: Bool) {
            self.zoneShare = zoneShare
            self.hasShares = hasShares
        }
    }

    /// Adds what a backend loaded for a request.
    public mutating func merge(_ loaded: RecordSnapshot) {
        schema = loaded.schema
        records.merge(loaded.records) { _, new in new }
        absentRecords.formUnion(loaded.absentRecords)
        ancestorsLoaded.formUnion(loaded.ancestorsLoaded)
        references.merge(loaded.references) { _, new in new }
        referencesLoaded.formUnion(loaded.referencesLoaded)
        zones.merge(loaded.zones) { _, new in new }
        shares.merge(loaded.shares) { _, new in new }
        zoneSharing = loaded.zoneSharing ?? zoneSharing
        shareRoots = loaded.shareRoots ?? shareRoots
        callerAccess = loaded.callerAccess ?? callerAccess
        receipts.merge(loaded.receipts) { _, new in new }
        users.merge(loaded.users) { _, new in new }
        uniqueHolders.merge(loaded.uniqueHolders) { _, new in new }
    }
}

/// A value a unique constraint looks for: live records of `recordType` whose `field` has `key` (and, for a
/// conditional constraint, whose `condition` field has its key).
public struct UniqueProbe: Sendable, Hashable {
    public var recordType: String
    public var field: String
    public var key: IndexEntry.Key
    public var condition: ConstraintChecker.UniqueCheck.Condition?

    public init(recordType: String, field: String, key: IndexEntry.Key, condition: ConstraintChecker.UniqueCheck.Condition?) {
        self.recordType = recordType
        self.field = field
        self.key = key
        self.condition = condition
    }
}
