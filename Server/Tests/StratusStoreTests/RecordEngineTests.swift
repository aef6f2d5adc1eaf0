import StratusModel
import StratusStore
import Testing

/// CloudKit's record rules, decided by ``RecordEngine`` against an in-memory zone: no database, no I/O.
@Suite struct RecordEngineTests {
    static let owner = "_0wner"
    static let zone = DatabaseRef.privateDatabase("iCloud.test", .development, owner: owner).zone("Notes")
    static let publicZone = DatabaseRef.publicDatabase("iCloud.test", .development).zone(ZoneID.defaultZoneName)
    static let schema = try! SchemaLanguage.parse("""
        DEFINE SCHEMA
            RECORD TYPE Note (title STRING, slug STRING UNIQUE, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world");
        """)
    static let stamp = RecordStamp(timestamp: 1_000, userRecordName: owner, deviceID: "d")

    // MARK: - Building cases

    static func key(_ name: String, zone: String = "Notes") -> RecordKey { RecordKey(zoneName: zone, recordName: name) }

    static func stored(_ name: String, type: String = "Note", tag: String = "t1", fields: [String: FieldValue] = [:], parent: String? = nil, share: String? = nil) -> StoredRecord {
        StoredRecord(key: key(name), type: type, changeTag: tag, fields: EncodedFields(fields), created: stamp, modified: stamp, parent: parent, share: share)
    }

    static func create(_ name: String, fields: [String: JSONValue] = [:], parent: String? = nil) -> RecordOperation {
        RecordOperation(
            type: .create, recordName: name, recordType: "Note", fields: fields.mapValues { FieldInput(value: $0) },
            parent: parent.map { .set($0) } ?? .unchanged
        )
    }

    static func reference(_ name: String, _ action: String) -> JSONValue {
        .object(["recordName": .string(name), "action": .string(action)])
    }

    static func delete(_ name: String) -> RecordOperation { RecordOperation(type: .forceDelete, recordName: name) }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var stored: [StoredRecord] = []
        var edges: [ReferenceEdge] = []
        var shares: [String: ShareState] = [:]
        var users: Set<String> = []
        var zone: ZoneRef = RecordEngineTests.zone
        var caller = Caller(userRecordName: RecordEngineTests.owner)
        var operations: [RecordOperation]
        var atomic = false
        /// One outcome per operation: `saved`, `deleted`, or the failure's code.
        var outcomes: [String]
        /// The plan's writes, by kind, in order.
        var writes: [String]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a new record is saved with a change tag from the sequence", operations: [create("n1", fields: ["title": .string("a")])],
             outcomes: ["saved"], writes: ["saveRecord"]),
        Case(name: "create over a live record is a conflict carrying the server record", stored: [stored("n1")],
             operations: [create("n1")], outcomes: ["conflict"], writes: []),
        Case(name: "update with a stale tag is a conflict; without a tag it is refused", stored: [stored("n1")],
             operations: [
                RecordOperation(type: .update, recordName: "n1", recordChangeTag: "old", fields: [:]),
                RecordOperation(type: .update, recordName: "n1", fields: [:]),
             ],
             outcomes: ["conflict", "invalidArgument"], writes: []),
        Case(name: "update of a missing record is not found", operations: [RecordOperation(type: .update, recordName: "nope", recordChangeTag: "x", fields: [:])],
             outcomes: ["notFound"], writes: []),
        Case(name: "Users records come from signing up only", zone: publicZone,
             operations: [RecordOperation(type: .create, recordName: "u", recordType: "Users")], outcomes: ["accessDenied"], writes: []),
        Case(name: "the public database checks the type's grants", zone: publicZone, caller: .anonymous,
             operations: [create("n1")], outcomes: ["accessDenied"], writes: []),
        Case(name: "DELETE_SELF deletes along, transitively",
             stored: [stored("a"), stored("b"), stored("c")],
             edges: [ReferenceEdge(source: key("b"), target: key("a"), action: .deleteSelf), ReferenceEdge(source: key("c"), target: key("b"), action: .deleteSelf)],
             operations: [delete("a")], outcomes: ["deleted"], writes: ["deleteRecord", "deleteRecord", "deleteRecord"]),
        Case(name: "a VALIDATE reference from outside what is deleted refuses the deletion",
             stored: [stored("a"), stored("g")], edges: [ReferenceEdge(source: key("g"), target: key("a"), action: .validate)],
             operations: [delete("a")], outcomes: ["validatingReference"], writes: []),
        Case(name: "a record updated in the batch to drop its DELETE_SELF reference is not deleted along",
             stored: [stored("a"), stored("b")], edges: [ReferenceEdge(source: key("b"), target: key("a"), action: .deleteSelf)],
             operations: [RecordOperation(type: .forceReplace, recordName: "b", recordType: "Note", fields: [:]), delete("a")],
             outcomes: ["saved", "deleted"], writes: ["saveRecord", "deleteRecord"]),
        Case(name: "a record created in the batch with a DELETE_SELF reference is deleted along",
             stored: [stored("a")],
             operations: [create("b", fields: ["up": reference("a", "DELETE_SELF")]), delete("a")],
             outcomes: ["saved", "deleted"], writes: ["saveRecord", "deleteRecord", "deleteRecord"]),
        Case(name: "a VALIDATE reference needs a live target", operations: [create("b", fields: ["up": reference("gone", "VALIDATE")])],
             outcomes: ["validatingReference"], writes: []),
        Case(name: "parents cannot form a cycle", stored: [stored("a"), stored("b", parent: "a"), stored("c", parent: "b")],
             operations: [RecordOperation(type: .forceUpdate, recordName: "a", fields: [:], parent: .set("c"))],
             outcomes: ["invalidArgument"], writes: []),
        Case(name: "a child may name a parent created earlier in the batch",
             operations: [create("p"), create("c", parent: "p")], outcomes: ["saved", "saved"], writes: ["saveRecord", "saveRecord"]),
        Case(name: "an atomic batch with one failure writes nothing; the others report ATOMIC_ERROR", stored: [stored("n1")],
             operations: [create("n2"), create("n1"), create("n3")], atomic: true,
             outcomes: ["atomicFailure", "conflict", "atomicFailure"], writes: []),
        Case(name: "a batch that is not atomic keeps what succeeded", stored: [stored("n1")],
             operations: [create("n2"), create("n1"), create("n3")], outcomes: ["saved", "conflict", "saved"], writes: ["saveRecord", "saveRecord"]),
        Case(name: "a unique value held by a stored record is refused", stored: [stored("n1", fields: ["slug": .string("hello")])],
             operations: [create("n2", fields: ["slug": .string("hello")])], outcomes: ["uniqueViolation"], writes: []),
        Case(name: "a unique value taken earlier in the batch is refused; one given up earlier is free",
             stored: [stored("n1", fields: ["slug": .string("old")])],
             operations: [
                create("n2", fields: ["slug": .string("new")]), create("n3", fields: ["slug": .string("new")]),
                delete("n1"), create("n4", fields: ["slug": .string("old")]),
             ],
             outcomes: ["saved", "uniqueViolation", "deleted", "saved"], writes: ["saveRecord", "deleteRecord", "saveRecord"]),
        Case(name: "sharing a record creates the share, marks its root and invites a known user", stored: [stored("root")], users: ["_bob"],
             operations: [RecordOperation(
                type: .create, recordName: "s1", recordType: ShareRecords.recordType,
                share: ShareChange(rootRecordName: "root", participants: [ParticipantChange(lookup: .userRecordName("_bob"), permission: .readWrite)])
             )],
             outcomes: ["saved"], writes: ["saveRecord", "createShare", "markShareRoot", "addParticipant"]),
        Case(name: "inviting someone who is not a user of the container is refused", stored: [stored("root")],
             operations: [RecordOperation(
                type: .create, recordName: "s1", recordType: ShareRecords.recordType,
                share: ShareChange(rootRecordName: "root", participants: [ParticipantChange(lookup: .userRecordName("_nobody"), permission: .readOnly)])
             )],
             outcomes: ["invalidArgument"], writes: []),
        Case(name: "a record beneath a shared one cannot be shared again",
             stored: [stored("root", share: "s1"), stored("child", parent: "root"), stored("s1", type: ShareRecords.recordType)],
             shares: ["s1": ShareState(rootRecordName: "root", publicPermission: .none, participants: [])],
             operations: [RecordOperation(type: .create, recordName: "s2", recordType: ShareRecords.recordType, share: ShareChange(rootRecordName: "child"))],
             outcomes: ["alreadyExists"], writes: []),
        Case(name: "deleting a shared root takes its share along",
             stored: [stored("root", share: "s1"), stored("s1", type: ShareRecords.recordType)],
             shares: ["s1": ShareState(rootRecordName: "root", publicPermission: .none, participants: [])],
             operations: [delete("root")], outcomes: ["deleted"], writes: ["deleteRecord", "removeShare", "deleteRecord"]),
        Case(name: "a READ_WRITE participant writes beneath the shared root and nowhere else",
             stored: [stored("root", share: "s1"), stored("other"), stored("s1", type: ShareRecords.recordType)],
             shares: ["s1": ShareState(rootRecordName: "root", publicPermission: .none, participants: [
                ShareParticipant(participantID: "p1", userRecordName: "_bob", permission: .readWrite, type: .user, acceptanceStatus: .accepted),
             ])],
             caller: Caller(userRecordName: "_bob"),
             operations: [create("mine", parent: "root"), create("stray", parent: "other"), create("orphan")],
             outcomes: ["saved", "accessDenied", "accessDenied"], writes: ["saveRecord"]),
        Case(name: "a participant leaves by deleting the share record",
             stored: [stored("root", share: "s1"), stored("s1", type: ShareRecords.recordType)],
             shares: ["s1": ShareState(rootRecordName: "root", publicPermission: .none, participants: [
                ShareParticipant(participantID: "p1", userRecordName: "_bob", permission: .readOnly, type: .user, acceptanceStatus: .accepted),
             ])],
             caller: Caller(userRecordName: "_bob"),
             operations: [delete("s1")], outcomes: ["deleted"], writes: ["leaveShare"]),
    ]

    static func outcome(_ result: RecordOperationResult) -> String {
        switch result {
        case .saved: "saved"
        case .deleted: "deleted"
        case .failed(let failure): failure.error.code.description
        }
    }

    static func kind(_ write: PlannedWrite) -> String {
        String(String(describing: write).prefix { $0 != "(" })
    }

    static func backend(for testCase: Case) -> MemoryBackend {
        var backend = MemoryBackend(schema: schema)
        for record in testCase.stored {
            var record = record
            record.key.zoneName = testCase.zone.zoneName
            backend.records[record.key] = record
        }
        backend.edges = testCase.edges
        backend.shares = testCase.shares
        backend.users = testCase.users
        backend.liveZones.insert(testCase.zone.zoneName)
        return backend
    }

    @Test("each rule decides its case", arguments: cases)
    func rules(_ testCase: Case) throws {
        var backend = Self.backend(for: testCase)
        let batch = RecordBatch(zone: testCase.zone, operations: testCase.operations, atomic: testCase.atomic, caller: testCase.caller, timestamp: 2_000)
        let plan = try backend.plan(RecordEngine.Input(batch: batch, firstSequence: 100, newShortGUID: { "guid" }))
        #expect(plan.results.map(Self.outcome) == testCase.outcomes)
        #expect(plan.writes.map(Self.kind) == testCase.writes)
    }

    @Test("a conflict carries the server record; a save's change tag is its sequence number in base 36")
    func conflictAndTags() throws {
        var backend = MemoryBackend(schema: Self.schema)
        backend.liveZones.insert("Notes")
        backend.records[Self.key("n1")] = Self.stored("n1", tag: "zz", fields: ["title": .string("server")])
        let batch = RecordBatch(zone: Self.zone, operations: [
            RecordOperation(type: .update, recordName: "n1", recordChangeTag: "old", fields: ["title": FieldInput(value: .string("mine"))]),
            Self.create("n2"),
        ], atomic: false, caller: Caller(userRecordName: Self.owner), timestamp: 2_000)
        let plan = try backend.plan(RecordEngine.Input(batch: batch, firstSequence: 36))
        guard case .failed(let failure) = plan.results[0], case .saved(let saved) = plan.results[1] else {
            Issue.record("\(plan.results)")
            return
        }
        #expect(failure.serverRecord?.recordChangeTag == "zz")
        #expect(failure.serverRecord?.fields == EncodedFields(["title": .string("server")]))
        #expect(saved.recordChangeTag == "10")
        #expect(plan.sequencesUsed == 1)
    }

    @Test("a batch of 200 is loaded set by set: a few rounds, each naming every record it needs")
    func loadsSets() throws {
        var backend = MemoryBackend(schema: Self.schema)
        backend.liveZones.insert("Notes")
        for index in 0..<100 { backend.records[Self.key("old\(index)")] = Self.stored("old\(index)", parent: index > 0 ? "old\(index - 1)" : nil) }
        var operations = (0..<100).map { Self.create("new\($0)", fields: ["slug": .string("s\($0)")], parent: "old\($0)") }
        operations += (0..<100).map { Self.delete("old\($0)") }
        let batch = RecordBatch(zone: Self.zone, operations: operations, atomic: false, caller: Caller(userRecordName: Self.owner), timestamp: 2_000)
        let plan = try backend.plan(RecordEngine.Input(batch: batch, firstSequence: 1))
        #expect(plan.results.allSatisfy { if case .failed = $0 { false } else { true } })
        #expect(backend.requests.count <= 4)
        #expect(backend.requests.first?.records.count == 200)
        #expect(backend.requests.map(\.uniqueProbes.count).reduce(0, +) == 100)
    }

    @Test("a plan applied and planned again sees its own changes")
    func planThenApply() throws {
        var backend = MemoryBackend(schema: Self.schema)
        backend.liveZones.insert("Notes")
        let caller = Caller(userRecordName: Self.owner)
        let first = try backend.plan(RecordEngine.Input(batch: RecordBatch(
            zone: Self.zone, operations: [Self.create("a"), Self.create("b", fields: ["up": Self.reference("a", "DELETE_SELF")])],
            atomic: true, caller: caller, timestamp: 2_000
        ), firstSequence: 1))
        backend.apply(first)
        #expect(backend.schema.recordTypes["Note"]?.fields["up"]?.type == FieldType(.reference))
        let second = try backend.plan(RecordEngine.Input(batch: RecordBatch(
            zone: Self.zone, operations: [Self.delete("a")], atomic: true, caller: caller, timestamp: 3_000
        ), firstSequence: 3))
        #expect(second.writes.map(Self.kind) == ["deleteRecord", "deleteRecord"])
        #expect(second.events.map(\.kind) == [.deleted, .deleted])
    }
}

extension RecordEngineTests {
    @Test("deleting a share record frees its root, which can be shared again")
    func deletingShareFreesRoot() throws {
        var backend = MemoryBackend(schema: Self.schema)
        backend.liveZones.insert("Notes")
        backend.records[Self.key("root")] = Self.stored("root", share: "s1")
        backend.records[Self.key("s1")] = Self.stored("s1", type: ShareRecords.recordType)
        backend.shares["s1"] = ShareState(rootRecordName: "root", publicPermission: .none, participants: [])
        let caller = Caller(userRecordName: Self.owner)
        let deletion = try backend.plan(RecordEngine.Input(batch: RecordBatch(
            zone: Self.zone, operations: [Self.delete("s1")], atomic: true, caller: caller, timestamp: 2_000
        ), firstSequence: 10))
        #expect(deletion.writes.map(Self.kind) == ["removeShare", "markShareRoot", "deleteRecord"])
        backend.apply(deletion)
        #expect(backend.records[Self.key("root")]?.share == nil)
        let again = try backend.plan(RecordEngine.Input(batch: RecordBatch(
            zone: Self.zone,
            operations: [RecordOperation(type: .create, recordName: "s2", recordType: ShareRecords.recordType, share: ShareChange(rootRecordName: "root"))],
            atomic: true, caller: caller, timestamp: 3_000
        ), firstSequence: 20))
        #expect(again.results.map(Self.outcome) == ["saved"])
    }
}
