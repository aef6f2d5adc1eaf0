/// What ``RecordEngine`` needs loaded before it can decide a batch: each part is one set-based load.
///
/// Every name is in the batch's database; a ``RecordKey`` names its zone.
public struct SnapshotRequest: Sendable, Hashable {
    /// Rows to load by name, live or tombstones.
    public var records: Set<RecordKey> = []
    /// Records of the batch's zone whose chains of parents to load, in one walk up.
    public var ancestors: Set<String> = []
    /// Records whose incoming `DELETE_SELF` and `VALIDATE` references to load, following `DELETE_SELF` sources
    /// transitively (the cascade closure), with the sources' rows.
    public var references: Set<RecordKey> = []
    /// Zones of the database to look for.
    public var zones: Set<String> = []
    /// Share records of the batch's zone whose shares and participants to load.
    public var shares: Set<String> = []
    /// Load the zone-wide share's name and whether the zone holds any share.
    public var zoneSharing = false
    /// Load every shared root of the batch's zone with its ancestors.
    public var shareRoots = false
    /// Load the shares of the batch's zone the caller accepted.
    public var callerAccess = false
    /// Asset receipts to load.
    public var receipts: Set<String> = []
    /// User record names of the container whose accounts to look for.
    public var users: Set<String> = []
    /// Unique values to look for among the live records of the batch's zone.
    public var uniqueProbes: Set<UniqueProbe> = []

    public init() {}

    /// Whether nothing is asked.
    public var isEmpty: Bool {
        records.isEmpty && ancestors.isEmpty && references.isEmpty && zones.isEmpty && shares.isEmpty && !zoneSharing
            && !shareRoots && !callerAccess && receipts.isEmpty && users.isEmpty && uniqueProbes.isEmpty
    }
}
