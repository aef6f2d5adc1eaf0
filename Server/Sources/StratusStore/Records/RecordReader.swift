import StratusModel

/// Who reads records, and what they may see: CloudKit's read rules, decided in the store for every caller.
///
/// In the public database the record types' grants decide (``AccessPolicy``); in a zone another user shared with
/// the caller, the shares they accepted decide (``ShareAccess/reached(_:covering:)``); in the caller's own zones
/// everything is theirs.
///
/// ```swift
/// let reader = RecordReader(caller: caller, grants: publicSchema)
/// let shown = page.changes.filter(reader.shows)
/// ```
public struct RecordReader: Sendable {
    public var caller: Caller
    /// The public database's schema, whose grants apply; `nil` in private and shared databases.
    public var grants: Schema?

    public init(caller: Caller, grants: Schema? = nil) {
        self.caller = caller
        self.grants = grants
    }

    /// How much of a record type the caller may read.
    public func scope(of recordType: String) -> AccessPolicy.ReadScope {
        guard let grants, let type = grants.recordTypes[recordType] else { return .all }
        return AccessPolicy.readScope(of: type, caller: caller)
    }

    /// Whether the record type's grants let the caller read the record.
    public func mayRead(_ record: Record) -> Bool {
        guard let grants, let type = grants.recordTypes[record.recordType] else { return true }
        return AccessPolicy.allows(.read, on: type, caller: caller, creator: record.created.userRecordName)
    }

    /// Whether a change feed shows a change: saved records the caller may read, deletions of readable types.
    public func shows(_ change: RecordChange) -> Bool {
        switch change {
        case .saved(let record): mayRead(record)
        case .deleted(let deletion): deletion.recordType.map { scope(of: $0) != .none } ?? true
        }
    }
}

extension ShareAccess {
    /// Of the named records, those these shares reach, given the share covering each
    /// (``ShareStore/coveringShares(of:in:)``): every one through a zone-wide share, otherwise those a share the
    /// participant accepted covers.
    public func reached(_ recordNames: some Sequence<String>, covering: [String: String]) -> Set<String> {
        guard zoneWide == nil else { return Set(recordNames) }
        return Set(recordNames.filter { name in covering[name].flatMap(permission(viaShare:)) != nil })
    }
}

/// A lookup in a zone another user shared with the caller, read from one snapshot
/// (``ShareStore/sharedLookup(_:in:user:)``): what the caller's shares reach there, the named records, and the
/// share covering each.
public struct SharedLookup: Sendable {
    /// The shares the caller accepted in the zone; empty when the zone is not shared with them (or does not exist).
    public var access: ShareAccess
    /// The named records that exist, by name.
    public var records: [String: Record]
    /// The share covering each found record that has one.
    public var covering: [String: String]

    public init(access: ShareAccess, records: [String: Record], covering: [String: String]) {
        self.access = access
        self.records = records
        self.covering = covering
    }

    /// The found records the caller's shares reach.
    public var visibleRecords: [String: Record] {
        let reached = access.reached(records.keys, covering: covering)
        return records.filter { reached.contains($0.key) }
    }
}
