import StratusModel

/// CloudKit's rules for record batches, decided without I/O.
///
/// A backend asks ``plan(_:)`` what a batch does, given a ``RecordSnapshot`` of what the rules read. When the
/// snapshot lacks something, the answer is ``Step/load(_:)`` with everything the batch still needs, which the
/// backend loads set by set (one statement per kind of thing, never one per record) and adds to the snapshot
/// before asking again; in practice two or three rounds. The final answer is a ``WritePlan``, which the
/// backend applies in the same transaction.
///
/// ```swift
/// var snapshot = RecordSnapshot(schema: schema)
/// while true {
///     switch RecordEngine.plan(RecordEngine.Input(batch: batch, firstSequence: next), snapshot: snapshot) {
///     case .load(let request): snapshot.merge(try load(request))
///     case .apply(let plan): return try apply(plan)
///     }
/// }
/// ```
public enum RecordEngine {
    /// A batch and what the backend gives the rules besides the snapshot.
    public struct Input: Sendable {
        public var batch: RecordBatch
        /// Fields typed ahead of the write (see ``PreparedFields/prepare(_:schema:environment:)``), per operation.
        public var prepared: [PreparedFields?]
        /// The first change sequence number the plan may use; it uses ``WritePlan/sequencesUsed`` from there.
        public var firstSequence: Int64
        /// Makes short GUIDs and participant IDs.
        public var newShortGUID: @Sendable () -> String

        public init(
            batch: RecordBatch, prepared: [PreparedFields?] = [], firstSequence: Int64,
            newShortGUID: @escaping @Sendable () -> String = ShortGUID.random
        ) {
            self.batch = batch
            self.prepared = prepared
            self.firstSequence = firstSequence
            self.newShortGUID = newShortGUID
        }
    }

    /// The engine's answer.
    public enum Step: Sendable {
        /// Load this and ask again.
        case load(SnapshotRequest)
        /// Apply this.
        case apply(WritePlan)
    }

    /// Decides a batch against a snapshot.
    public static func plan(_ input: Input, snapshot: RecordSnapshot) -> Step {
        var planner = BatchPlanner(input: input, snapshot: snapshot)
        planner.run()
        if !planner.needs.isEmpty { return .load(planner.needs) }
        return .apply(planner.plan)
    }

    /// Where a new account's `Users` records go: every user has one in the default zone of each environment's public
    /// database, named by their user record name.
    public static func userRecordZones(of account: Account) -> [ZoneRef] {
        Environment.allCases.map { DatabaseRef.publicDatabase(account.containerID, $0).zone(ZoneID.defaultZoneName) }
    }

    /// The plan that gives a new user their `Users` record in a public database's default zone; `nil` when
    /// `existing` says they have one.
    public static func userRecord(
        named name: String, in database: DatabaseRef, existing: Bool, schema: Schema, timestamp: Int64, sequence: Int64
    ) throws(StorageError) -> WritePlan? {
        guard !existing else { return nil }
        var schema = schema
        var plan = WritePlan()
        // Users is built in: it exists in every environment, so it is added here even in production.
        if schema.recordTypes[Schema.usersType] == nil {
            try SchemaResolver.requireRecordType(Schema.usersType, in: &schema, environment: .development)
            plan.schema = schema
        }
        let stamp = RecordStamp(timestamp: timestamp, userRecordName: name, deviceID: "signup")
        let record = PlannedRecord(
            key: RecordKey(zoneName: ZoneID.defaultZoneName, recordName: name), type: Schema.usersType,
            changeTag: ChangeTag.make(sequence), sequence: sequence, fields: EncodedFields([:]), created: stamp, modified: stamp,
            parent: nil, share: nil, shortGUID: nil, indexEntries: [], references: [], assets: [], usedReceipts: [], replacesRow: false
        )
        plan.writes = [.saveRecord(record)]
        plan.sequencesUsed = 1
        plan.events = [RecordEvent(kind: .created, zone: database.zone(ZoneID.defaultZoneName), record: record.record(in: database), fields: [:])]
        return plan
    }
}

/// Change tags are the change sequence number in base 36.
public enum ChangeTag {
    public static func make(_ sequence: Int64) -> String { String(sequence, radix: 36) }
}

/// Short GUIDs: the last segment of share URLs, and participant IDs.
public enum ShortGUID {
    /// 128 random bits, base-62 so it reads well in a URL.
    @Sendable public static func random() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        return String((0..<22).map { _ in alphabet[Int(generator.next(upperBound: UInt8(alphabet.count)))] })
    }
}

extension PlannedRecord {
    /// The record as clients see it right after the save.
    public func record(in database: DatabaseRef) -> Record {
        Record(
            recordName: key.recordName, recordType: type, recordChangeTag: changeTag, fields: fields, created: created,
            modified: modified, zoneID: database.wireZoneID(key.zoneName), parent: parent, share: share, shortGUID: shortGUID
        )
    }
}

/// Thrown inside the planner when the snapshot lacks something; the need is already noted.
struct NeedsLoading: Error {}
