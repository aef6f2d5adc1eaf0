import StratusModel
import StratusStore

/// Everything a zone holds, in memory, answering ``SnapshotRequest``s the way a backend does: the engine's
/// tests run without I/O and count the rounds of loading a batch takes.
struct MemoryBackend {
    var schema: Schema
    var records: [RecordKey: StoredRecord] = [:]
    var edges: [ReferenceEdge] = []
    /// Shares of the batch's zone by share record name.
    var shares: [String: ShareState] = [:]
    var liveZones: Set<String> = [ZoneID.defaultZoneName]
    var users: Set<String> = []
    var receipts: [String: ReceiptState] = [:]
    /// The requests answered, in order.
    var requests: [SnapshotRequest] = []

    init(schema: Schema) {
        self.schema = schema
    }

    /// Plans a batch as a backend does: load what the engine asks for until it answers a plan.
    mutating func plan(_ input: RecordEngine.Input) throws -> WritePlan {
        var snapshot = RecordSnapshot(schema: schema)
        for _ in 0..<64 {
            switch RecordEngine.plan(input, snapshot: snapshot) {
            case .load(let request):
                requests.append(request)
                snapshot.merge(load(request, zone: input.batch.zone, caller: input.batch.caller))
            case .apply(let plan):
                return plan
            }
        }
        throw StorageError(.internalFailure, "no plan after 64 rounds")
    }

    func load(_ request: SnapshotRequest, zone: ZoneRef, caller: Caller) -> RecordSnapshot {
        var loaded = RecordSnapshot(schema: schema)
        func add(_ key: RecordKey) {
            if let record = records[key] { loaded.records[key] = record } else { loaded.absentRecords.insert(key) }
        }
        func addAncestors(of name: String) {
            var next: String? = name
            var seen: Set<String> = []
            while let current = next, seen.insert(current).inserted {
                let key = RecordKey(zoneName: zone.zoneName, recordName: current)
                add(key)
                next = records[key]?.parent
            }
        }
        request.records.forEach(add)
        request.ancestors.forEach(addAncestors)
        for name in request.zones { loaded.zones[name] = liveZones.contains(name) }
        var queue = Array(request.references)
        var closure: Set<RecordKey> = []
        while let target = queue.popLast() {
            guard closure.insert(target).inserted else { continue }
            loaded.referencesLoaded.insert(target)
            for edge in edges where edge.target == target {
                guard let source = records[edge.source] else { continue }
                loaded.records[source.key] = source
                loaded.references[target, default: []].append(edge)
                if edge.action == .deleteSelf && !source.deleted { queue.append(source.key) }
            }
        }
        if request.zoneSharing || request.shareRoots {
            loaded.zoneSharing = RecordSnapshot.ZoneSharing(
                zoneShare: shares.first { $0.value.rootRecordName == nil }?.key, hasShares: !shares.isEmpty
            )
        }
        if request.shareRoots {
            let roots = Set(shares.values.compactMap(\.rootRecordName))
            loaded.shareRoots = roots
            roots.forEach(addAncestors)
        }
        for name in request.shares { loaded.shares[name] = .some(shares[name]) }
        if request.callerAccess, let user = caller.userRecordName {
            loaded.callerAccess = ShareAccess(grants: shares.compactMap { name, share in
                guard let participant = share.participants.first(where: { $0.userRecordName == user && $0.acceptanceStatus == .accepted }) else { return nil }
                return ShareAccess.Grant(shareRecordName: name, rootRecordName: share.rootRecordName, permission: participant.permission)
            })
        }
        for receipt in request.receipts { loaded.receipts[receipt] = .some(receipts[receipt]) }
        for user in request.users { loaded.users[user] = users.contains(user) }
        for probe in request.uniqueProbes {
            loaded.uniqueHolders[probe] = Set(records.values.filter { record in
                guard !record.deleted, record.type == probe.recordType, record.key.zoneName == zone.zoneName,
                    let fields = try? record.fields.decode(), let value = fields[probe.field]
                else { return false }
                guard IndexEntry.key(for: value) == probe.key else { return false }
                guard let condition = probe.condition else { return true }
                return fields[condition.field].flatMap(IndexEntry.key(for:)) == condition.key
            }.map(\.key.recordName))
        }
        return loaded
    }

    /// Applies a plan to the memory, as a backend applies it to its tables.
    mutating func apply(_ plan: WritePlan) {
        if let schema = plan.schema { self.schema = schema }
        for write in plan.writes {
            switch write {
            case .saveRecord(let record):
                records[record.key] = StoredRecord(
                    key: record.key, type: record.type, changeTag: record.changeTag, fields: record.fields, created: record.created,
                    modified: record.modified, parent: record.parent, share: record.share, shortGUID: record.shortGUID
                )
                edges.removeAll { $0.source == record.key }
                edges += record.references
            case .deleteRecord(let key, let sequence, let modified):
                records[key]?.deleted = true
                records[key]?.changeTag = ChangeTag.make(sequence)
                records[key]?.modified = modified
                records[key]?.fields = EncodedFields(json: "{}")
                records[key]?.share = nil
                edges.removeAll { $0.source == key }
            case .setShortGUID(let key, let guid):
                records[key]?.shortGUID = guid
            case .markShareRoot(let key, let share, let guid, _):
                records[key]?.share = share
                records[key]?.shortGUID = guid
            case .createShare(let name, let root, let permission):
                shares[name] = ShareState(rootRecordName: root, publicPermission: permission, participants: [])
            case .setPublicPermission(let name, let permission, _):
                shares[name]?.publicPermission = permission
            case .addParticipant(let name, let participant, _):
                shares[name]?.participants.append(participant)
            case .setParticipantPermission(let name, let id, let permission, _):
                if let index = shares[name]?.participants.firstIndex(where: { $0.participantID == id }) {
                    shares[name]?.participants[index].permission = permission
                }
            case .removeParticipant(let name, let id, _):
                shares[name]?.participants.removeAll { $0.participantID == id }
            case .leaveShare(let name, let user, _):
                shares[name]?.participants.removeAll { $0.userRecordName == user }
            case .removeShare(let name, _):
                shares[name] = nil
            }
        }
    }
}
