import Foundation
import GRDB
import StratusModel
import StratusSQLite
import StratusStore
import StratusStoreTesting
import Testing

/// Several processes on one file: each store below is what one process has (its own connections and caches).
@Suite struct SQLiteEventTests {
    static let container = "iCloud.test.Events"

    @Test("an event committed by one process is delivered to another by catchUpEvents at once, and by the running store's polling soon after")
    func eventsCrossProcesses() async throws {
        let (writer, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        let reader = try SQLiteStore(configuration: .init(path: path))
        let recorder = EventRecorder(reader)
        try await writer.createContainer(ContainerInfo(id: Self.container, apiToken: "t", createdAt: 1))
        try await writer.createServerKey(ServerKey(id: "k1", containerID: Self.container, publicKeyPEM: "PEM", role: nil, createdAt: 1))
        try await writer.revokeServerKey(id: "k1", containerID: Self.container)
        try await reader.catchUpEvents()
        #expect(recorder.events == [.serverKeyRevoked(keyID: "k1")])

        // The reading process's store runs as its service does in a server: it polls the file.
        let service = Task { try await reader.run() }
        defer { service.cancel() }
        try await writer.setAPIToken("t2", containerID: Self.container)
        // The poll runs every 50 ms; a generous deadline, as a loaded test machine may starve it for seconds.
        try await Polling.until("both events are read", within: 30, every: .milliseconds(10)) { recorder.events.count >= 2 } describe: {
            "\(recorder.events)"
        }
        #expect(recorder.events == [.serverKeyRevoked(keyID: "k1"), .containerChanged(containerID: Self.container)])
        #expect(!recorder.missed)
    }

    @Test("a process that fell behind the pruned event log is told it missed events")
    func missedEvents() async throws {
        let (writer, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        let reader = try SQLiteStore(configuration: .init(path: path))
        let recorder = EventRecorder(reader)
        try await writer.createContainer(ContainerInfo(id: Self.container, apiToken: "t", createdAt: 1))
        try await reader.catchUpEvents()
        // Two events committed, the first pruned in the same transaction: the reader can only ever see the gap
        // (as after being stopped for longer than events are kept).
        let file = try DatabaseQueue(path: path)
        try await file.write { db in
            let body = StoreEvent.containerChanged(containerID: Self.container).encoded
            try db.execute(sql: "INSERT INTO store_events (body, created_at) VALUES (?, 0), (?, 0)", arguments: [body, body])
            try db.execute(sql: "DELETE FROM store_events WHERE id < (SELECT MAX(id) FROM store_events)")
        }
        try await reader.catchUpEvents()
        #expect(recorder.missed)
        #expect(recorder.events == [.containerChanged(containerID: Self.container)])
    }

    @Test("a schema another process changed is neither lost by this one's next write nor used stale by its reads")
    func schemaAcrossProcesses() async throws {
        let (first, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        let second = try SQLiteStore(configuration: .init(path: path))
        let database = DatabaseRef.publicDatabase(Self.container, .development)
        let zone = database.zone(ZoneID.defaultZoneName)
        try await first.changeSchemas(containerID: Self.container) { development, _ in
            development = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Note (a INT64, GRANT WRITE TO \"_creator\", GRANT CREATE TO \"_icloud\", GRANT READ TO \"_world\");")
        }
        // The second process reads (and caches) the schema, then the first adds a field to it.
        #expect(try await second.schema(containerID: Self.container, environment: .development).recordTypes["Note"]?.fields["b"] == nil)
        try await first.changeSchemas(containerID: Self.container) { development, _ in
            development.recordTypes["Note"]?.fields["b"] = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Note (b STRING QUERYABLE);").recordTypes["Note"]?.fields["b"]
        }
        // A write in development adds field c to the schema: on top of b, not on the stale copy.
        let results = try await second.modifyRecords(RecordBatch(
            zone: zone, operations: [RecordOperation(type: .create, recordName: "n1", recordType: "Note", fields: ["c": FieldInput(value: .string("x"))])],
            atomic: true, caller: Caller(userRecordName: "_a11ce000000000000000000000000000"), timestamp: 1
        ))
        guard case .saved? = results.first else {
            Issue.record("not saved: \(results)")
            return
        }
        let fields = try await SQLiteStore(configuration: .init(path: path)).schema(containerID: Self.container, environment: .development).recordTypes["Note"]?.fields
        #expect(fields?["b"] != nil && fields?["c"] != nil && fields?["a"] != nil)
        try await second.catchUpEvents()
        #expect(try await second.schema(containerID: Self.container, environment: .development).recordTypes["Note"]?.fields["b"] != nil)
    }
}
