import StratusModel

/// A zone as `zones/list` and `zones/lookup` describe it.
public struct ZoneInfo: Sendable, Hashable {
    public var zoneID: ZoneID
    /// The token a `changes/zone` from now on would start from.
    public var syncToken: String
    /// Whether the zone supports atomic batches (custom zones do).
    public var atomic: Bool

    public init(zoneID: ZoneID, syncToken: String, atomic: Bool) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.atomic = atomic
    }
}

/// A zone operation of `zones/modify`.
public enum ZoneOperation: Sendable, Hashable {
    case create(zoneName: String)
    case delete(zoneName: String)

    public var zoneName: String {
        switch self {
        case .create(let name), .delete(let name): name
        }
    }
}

/// The outcome of one zone operation.
public enum ZoneOperationResult: Sendable {
    case saved(ZoneInfo)
    case deleted(ZoneID)
    case failed(zoneID: ZoneID, error: StorageError)
}

/// A zone that changed since a database sync token.
public struct ZoneChange: Sendable, Hashable {
    public var zoneID: ZoneID
    /// The zone was deleted.
    public var deleted: Bool

    public init(zoneID: ZoneID, deleted: Bool) {
        self.zoneID = zoneID
        self.deleted = deleted
    }
}

/// The answer to `changes/database`.
public struct DatabaseChanges: Sendable {
    public var zones: [ZoneChange]
    public var syncToken: String
    public var moreComing: Bool

    public init(zones: [ZoneChange], syncToken: String, moreComing: Bool) {
        self.zones = zones
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}

/// One entry of a zone's change feed.
public enum RecordChange: Sendable {
    case saved(Record)
    case deleted(DeletedRecord)

    public var recordName: String {
        switch self {
        case .saved(let record): record.recordName
        case .deleted(let deletion): deletion.recordName
        }
    }
}

/// What `changes/zone` asks of one zone.
public struct ZoneChangesQuery: Sendable, Hashable {
    public var zone: ZoneRef
    public var syncToken: String?
    public var limit: Int
    /// Only records of these types; `nil` for all.
    public var recordTypes: Set<String>?
    /// Only records matching this query (``ChangeFeeds/keeping(_:matching:fromStart:)``); `nil` for all.
    public var matching: QueryInput?

    public init(zone: ZoneRef, syncToken: String?, limit: Int, recordTypes: Set<String>? = nil, matching: QueryInput? = nil) {
        self.zone = zone
        self.syncToken = syncToken
        self.limit = limit
        self.recordTypes = recordTypes
        self.matching = matching
    }
}

/// The answer to `changes/zone` for one zone: changes in commit order, each record once at its latest state.
public struct ZoneChanges: Sendable {
    public var changes: [RecordChange]
    public var syncToken: String
    public var moreComing: Bool

    public init(changes: [RecordChange], syncToken: String, moreComing: Bool) {
        self.changes = changes
        self.syncToken = syncToken
        self.moreComing = moreComing
    }
}
