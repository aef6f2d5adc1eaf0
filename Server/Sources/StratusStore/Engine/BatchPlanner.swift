import StratusModel

/// One round of planning a batch: the snapshot, with the batch's own changes laid over it as they are
/// decided, and the plan so far. A value type, so undoing a failed operation is restoring a copy.
struct BatchPlanner {
    let input: RecordEngine.Input
    /// What the batch still needs loaded; kept across undos.
    var needs = SnapshotRequest()
    /// The snapshot with this round's changes.
    var state: RecordSnapshot
    var plan = WritePlan()
    var nextSequence: Int64
    var schemaChanged = false
    /// The unique probes each record saved or deleted in this round holds now.
    var roundProbes: [RecordKey: Set<UniqueProbe>] = [:]
    /// Roots shared by this batch, with their share records' names, so that their results can name the share.
    var sharedRoots: [String: String] = [:]

    init(input: RecordEngine.Input, snapshot: RecordSnapshot) {
        self.input = input
        state = snapshot
        nextSequence = input.firstSequence
    }

    var batch: RecordBatch { input.batch }
    var database: DatabaseRef { batch.zone.database }
    var zoneName: String { batch.zone.zoneName }
    var caller: Caller { batch.caller }
    var environment: Environment { database.environment }
    var isSharedZoneCandidate: Bool { database.scope == .private && !batch.zone.isDefault }

    func key(_ name: String) -> RecordKey { RecordKey(zoneName: zoneName, recordName: name) }

    mutating func takeSequence() -> Int64 {
        let sequence = nextSequence
        nextSequence += 1
        return sequence
    }

    // MARK: - The batch

    mutating func run() {
        let atomic = batch.atomic && !batch.zone.isDefault
        var results: [RecordOperationResult] = []
        var failed = false
        for (index, operation) in batch.operations.enumerated() {
            let before = self
            let prepared = index < input.prepared.count ? input.prepared[index] : nil
            let result: RecordOperationResult
            do {
                result = try apply(operation, prepared: prepared)
            } catch is NeedsLoading {
                // This round's plan is discarded; the next round, with what is loaded, decides the operation.
                restore(before)
                continue
            } catch {
                result = .failed(RecordFailure(recordName: operation.recordName, error: error as? StorageError ?? StorageError(.internalFailure, "\(error)")))
            }
            if case .failed = result {
                failed = true
                restore(before)
            }
            results.append(result)
        }
        guard needs.isEmpty else { return }
        if atomic && failed {
            // All or nothing: the first failure undoes every operation; the others report ATOMIC_ERROR.
            plan = WritePlan()
            plan.results = zip(batch.operations, results).map { operation, result in
                if case .failed = result { return result }
                return .failed(RecordFailure(recordName: operation.recordName, error: StorageError(.atomicFailure, "another operation of this atomic batch failed")))
            }
            return
        }
        plan.results = namingShares(results)
        plan.schema = schemaChanged ? state.schema : nil
        plan.sequencesUsed = nextSequence - input.firstSequence
    }

    /// Undoes an operation, keeping what it found it needs.
    private mutating func restore(_ before: BatchPlanner) {
        let needs = self.needs
        self = before
        self.needs = needs
    }

    /// Results of records that a later operation of the same batch shared, naming their share.
    private func namingShares(_ results: [RecordOperationResult]) -> [RecordOperationResult] {
        guard !sharedRoots.isEmpty else { return results }
        return results.map { result in
            guard case .saved(var record) = result, let share = sharedRoots[record.recordName] else { return result }
            record.share = share
            return .saved(record)
        }
    }

    // MARK: - Reading the snapshot

    /// A record's row, live or a tombstone; `nil` when it has none.
    mutating func row(_ key: RecordKey) throws -> StoredRecord? {
        if let found = state.records[key] { return found }
        if state.absentRecords.contains(key) { return nil }
        needs.records.insert(key)
        throw NeedsLoading()
    }

    /// A live record of the batch's zone.
    mutating func liveRow(_ name: String) throws -> StoredRecord? {
        try row(key(name)).flatMap { $0.deleted ? nil : $0 }
    }

    /// The names from a record of the batch's zone up through its parents, itself first. Tombstones are
    /// followed through the parent they had; `stopAtTombstones` ends the walk at one instead.
    mutating func chain(from name: String, stopAtTombstones: Bool = false) throws -> [StoredRecord] {
        var chain: [StoredRecord] = []
        var visited: Set<String> = []
        var next: String? = name
        while let current = next, visited.insert(current).inserted {
            let key = key(current)
            guard let row = state.records[key] else {
                if state.absentRecords.contains(key) { break }
                needs.ancestors.insert(current)
                throw NeedsLoading()
            }
            if stopAtTombstones && row.deleted { break }
            chain.append(row)
            next = row.parent
        }
        return chain
    }

    /// The zone-wide share and whether the zone holds any share.
    mutating func zoneSharing() throws -> RecordSnapshot.ZoneSharing {
        if let sharing = state.zoneSharing { return sharing }
        needs.zoneSharing = true
        throw NeedsLoading()
    }

    /// A share of the batch's zone by its record's name.
    mutating func share(_ name: String) throws -> ShareState? {
        if let found = state.shares[name] { return found }
        needs.shares.insert(name)
        throw NeedsLoading()
    }

    /// Whether a zone of the database is live.
    mutating func zoneIsLive(_ name: String) throws -> Bool {
        if name == zoneName { return true }
        if let live = state.zones[name] { return live }
        needs.zones.insert(name)
        throw NeedsLoading()
    }

    /// Whether a user record name has an account in the container.
    mutating func userExists(_ name: String) throws -> Bool {
        if let exists = state.users[name] { return exists }
        needs.users.insert(name)
        throw NeedsLoading()
    }

    /// The shares of the batch's zone the caller accepted, when the caller writes in another user's zone.
    mutating func participantAccess() throws -> ShareAccess? {
        guard database.scope == .private, let user = caller.userRecordName, user != database.ownerRecordName else { return nil }
        if let access = state.callerAccess { return access }
        needs.callerAccess = true
        throw NeedsLoading()
    }

    /// Stored and planned `DELETE_SELF` and `VALIDATE` references into a record.
    mutating func incomingReferences(_ key: RecordKey) throws -> [ReferenceEdge] {
        guard state.referencesLoaded.contains(key) else {
            needs.references.insert(key)
            throw NeedsLoading()
        }
        return state.references[key] ?? []
    }

    /// The names of the live records of the batch's zone holding a unique value, this round's changes included.
    mutating func holders(of probe: UniqueProbe) throws -> Set<String> {
        guard let stored = state.uniqueHolders[probe] else {
            needs.uniqueProbes.insert(probe)
            throw NeedsLoading()
        }
        var holders = stored.filter { roundProbes[key($0)] == nil }
        for (key, probes) in roundProbes where probes.contains(probe) {
            holders.insert(key.recordName)
        }
        return holders
    }

    // MARK: - Changing the snapshot

    /// Replaces the references a record makes, in the snapshot.
    mutating func setReferences(from source: RecordKey, to edges: [ReferenceEdge]) {
        for (target, list) in state.references where list.contains(where: { $0.source == source }) {
            state.references[target] = list.filter { $0.source != source }
        }
        for edge in edges {
            state.references[edge.target, default: []].append(edge)
        }
    }

    /// The schema changed by `change`, noted for the plan.
    mutating func changeSchema(_ change: (inout Schema) throws(StorageError) -> Void) throws(StorageError) {
        var schema = state.schema
        try change(&schema)
        if schema != state.schema {
            state.schema = schema
            schemaChanged = true
        }
    }
}
