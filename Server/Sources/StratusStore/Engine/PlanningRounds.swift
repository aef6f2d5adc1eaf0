import StratusModel

/// Drives ``RecordEngine`` for a backend: asks what to load, takes what was loaded, until the batch is decided.
///
/// The backend's loop is the same on every backend and holds no rule:
///
/// ```swift
/// var rounds = PlanningRounds(input, snapshot: RecordSnapshot(schema: schema))
/// while let request = try rounds.nextLoad() {
///     rounds.add(try loader.load(request, schema: rounds.schema))
/// }
/// try apply(rounds.plan)
/// ```
public struct PlanningRounds: Sendable {
    private let input: RecordEngine.Input
    private var snapshot: RecordSnapshot
    private var rounds = 0
    private var decided: WritePlan?

    public init(_ input: RecordEngine.Input, snapshot: RecordSnapshot) {
        self.input = input
        self.snapshot = snapshot
    }

    /// The schema the snapshot holds, which loads type their values with.
    public var schema: Schema { snapshot.schema }

    /// What the engine needs loaded before it can decide, or `nil` once it has decided (see ``plan``).
    /// - Throws: ``StorageError/Code/zoneNotFound`` when the caller writes in another user's zone without a share
    ///   there (``ZoneRules/notShared(_:)``: the zone is not theirs to know of); ``StorageError/Code/internalFailure``
    ///   when the batch is undecided after ``StorePolicy/maximumPlanningRounds`` rounds.
    public mutating func nextLoad() throws(StorageError) -> SnapshotRequest? {
        guard decided == nil else { return nil }
        if let access = snapshot.callerAccess, access.isEmpty { throw ZoneRules.notShared(input.batch.zone) }
        guard rounds < StorePolicy.maximumPlanningRounds else {
            throw StorageError(.internalFailure, "the batch could not be planned in \(StorePolicy.maximumPlanningRounds) rounds")
        }
        rounds += 1
        switch RecordEngine.plan(input, snapshot: snapshot) {
        case .load(let request):
            return request
        case .apply(let plan):
            decided = plan
            return nil
        }
    }

    /// Adds what was loaded for the last request.
    public mutating func add(_ loaded: RecordSnapshot) {
        snapshot.merge(loaded)
    }

    /// The decided plan; empty before ``nextLoad()`` answered `nil`.
    public var plan: WritePlan { decided ?? WritePlan() }
}
