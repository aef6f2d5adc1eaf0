/// The store's policy numbers, written once for every backend.
///
/// A backend reads them; it never has numbers of its own for these choices. Each says why it has its value.
public enum StorePolicy {
    /// Rounds of loading a record batch may take before the engine must have decided it. A batch needs two or
    /// three (a row, then its share, then the share's participants); reaching this bound is a bug.
    public static let maximumPlanningRounds = 64

    /// Record types with at most this many records get a newly declared index in the schema change's own
    /// transaction; larger ones are indexed in the background (``indexBuildChunk`` records per transaction),
    /// and queries that need the index answer `TRY_AGAIN_LATER` until it is built.
    public static let synchronousIndexBuildLimit = 5_000
    /// Records indexed per background transaction of an index build: short enough that writes interleave.
    public static let indexBuildChunk = 2_000

    /// Milliseconds that store events are kept for processes that read them late; a process that falls
    /// further behind is told it missed some (``StoreEventDelivery/missed``) and reloads its caches.
    public static let eventRetention: Int64 = 10 * 60 * 1000
    /// Store events read per statement when a process catches up.
    public static let eventPageSize = 500

    /// A bound on walks up a record's parents, far beyond any real hierarchy: parents cannot form cycles, so a
    /// walk ends at a root; the bound only ends a walk through a cycle that an older version let be saved.
    public static let ancestorWalkBound = 1_000_000
}
