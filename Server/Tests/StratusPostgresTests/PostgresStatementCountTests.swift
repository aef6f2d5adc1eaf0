import Foundation
import Logging
import PostgresNIO
import StratusModel
import StratusPostgres
import StratusStore
import StratusStoreTesting
import Synchronization
import Testing

/// How many statements PostgreSQL runs for a batch and for requests' event catch-ups, as its own statistics count
/// them (`pg_stat_statements`, which `.ci/postgres-cluster` loads).
@Suite struct PostgresStatementCountTests {
    static let container = "iCloud.test.Statements"
    static let owner = "_a11ce000000000000000000000000000"

    /// Creates of `count` notes with indexed fields and a reference each, named from `prefix`.
    static func creates(_ count: Int, prefix: String) -> [RecordOperation] {
        (0..<count).map { index in
            RecordOperation(
                type: .create, recordName: "\(prefix)\(index)", recordType: "Note",
                fields: [
                    "title": FieldInput(value: .string("note \(index)"), type: nil),
                    "rank": FieldInput(value: .integer(Int64(index)), type: nil),
                    "parentNote": FieldInput(value: .object(["recordName": .string("\(prefix)\(max(index - 1, 0))"), "action": .string("NONE")]), type: "REFERENCE"),
                ]
            )
        }
    }

    /// Statements run in the database so far, counted by the server.
    static func statementsRun(_ connection: PostgresConnection) async throws -> Int64 {
        let rows = try await connection.query(
            "SELECT COALESCE(SUM(calls), 0)::bigint FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())",
            logger: quietLogger
        )
        for try await calls in rows.decode(Int64.self) { return calls }
        return 0
    }

    /// Runs `body` with a store of two connections on a fresh database, and a connection of its own that reads
    /// `pg_stat_statements` (see ``statementsRun(_:)``). The store reads its events only when asked, never on a timer.
    static func withCountedStore(_ body: (PostgresStore, PostgresConnection) async throws -> Void) async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            var configuration = try testConfiguration(database.url, poolSize: 2)
            configuration.eventPollInterval = .seconds(3600)
            let store = try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            let counter = try await PostgresConnection.connect(configuration: try configuration.connectionConfiguration(), id: 1, logger: quietLogger)
            do {
                _ = try await counter.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", logger: quietLogger).collect()
                try await body(store, counter)
            } catch {
                try? await counter.close()
                await store.close()
                throw error
            }
            try? await counter.close()
            await store.close()
        }
    }

    @Test("leases and housekeeping run as single statements with no transaction around them, so a busy server never holds feeds back with them")
    func housekeepingRunsAlone() async throws {
        try await Self.withCountedStore { store, counter in
            let before = try await Self.statementsRun(counter)
            #expect(try await store.acquireLease("sweep", holder: "node-a", now: 1_000, duration: 10_000))
            #expect(try await store.acquireLease("sweep", holder: "node-b", now: 2_000, duration: 10_000) == false)
            try await store.releaseLease("sweep", holder: "node-a")
            #expect(try await store.markSignatureSeen("signature", expiresAt: 5_000, now: 1_000))
            let after = try await Self.statementsRun(counter)
            // Three lease statements, and the signature's removal of expired ones and its insert: 5, and the store's
            // listener may start late and read once (6). Each in a transaction of its own would be 13.
            let statements = after - before - 1
            #expect(statements >= 5 && statements <= 6, "housekeeping ran \(statements) statements")
        }
    }

    @Test("a 200-operation batch is a handful of statements, not one or more per record")
    func batchIsAHandfulOfStatements() async throws {
        try await Self.withCountedStore { store, counter in
            let database = DatabaseRef.privateDatabase(Self.container, .development, owner: Self.owner)
            _ = try await store.modifyZones([.create(zoneName: "Notes")], in: database)
            func save(_ operations: [RecordOperation]) async throws {
                let results = try await store.modifyRecords(RecordBatch(
                    zone: database.zone("Notes"), operations: operations, atomic: true, caller: Caller(userRecordName: Self.owner), timestamp: 1_700_000_000_000
                ))
                for result in results {
                    guard case .saved = result else { throw StorageError(.internalFailure, "not saved: \(result)") }
                }
            }
            // The first batch creates the record type in the schema; the one measured finds it there.
            try await save(Self.creates(200, prefix: "warm"))
            let before = try await Self.statementsRun(counter)
            try await save(Self.creates(200, prefix: "note"))
            let after = try await Self.statementsRun(counter)
            // Minus the count's own statement.
            let statements = after - before - 1
            print("a 200-operation batch ran \(statements) statements")
            #expect(statements > 0, "pg_stat_statements counted the batch")
            #expect(statements <= 25, "a 200-operation batch ran \(statements) statements")
        }
    }

    @Test("requests arriving together share one read of the store events, and each still sees what committed before it")
    func catchUpsShareReads() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            var configuration = try testConfiguration(database.url, poolSize: 4)
            configuration.eventPollInterval = .seconds(3600)
            let store = try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            // The store runs as a server runs it: its service listens for other nodes' events.
            let service = Task { try await store.run() }
            defer { service.cancel() }
            let writer = try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            let counter = try await PostgresConnection.connect(configuration: try configuration.connectionConfiguration(), id: 1, logger: quietLogger)
            let ended = Mutex<[String]>([])
            store.observeEvents { delivery in
                if case .committed(let events) = delivery {
                    for case .sessionEnded(sessionID: let id) in events { ended.withLock { $0.append(id) } }
                }
            }
            do {
                _ = try await counter.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements", logger: quietLogger).collect()
                let before = try await Self.statementsRun(counter)
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<200 { group.addTask { try await store.catchUpEvents() } }
                    try await group.waitForAll()
                }
                let reads = try await Self.statementsRun(counter) - before - 1
                print("200 concurrent catch-ups ran \(reads) statements")
                #expect(reads >= 1)
                #expect(reads < 50, "200 concurrent catch-ups ran \(reads) statements")

                // While reads keep running, a catch-up called after a sign-out on another node waits for a read that
                // began after it, so it sees the sign-out.
                let churn = Task { while !Task.isCancelled { try? await store.catchUpEvents() } }
                try await Task.sleep(for: .milliseconds(20))
                for attempt in 0..<20 {
                    let id = "signed-out-\(attempt)"
                    try await writer.deleteSession(id: id)
                    try await store.catchUpEvents()
                    #expect(ended.withLock { $0.contains(id) }, "the catch-up after sign-out \(attempt) returned without it")
                }
                churn.cancel()
                await churn.value
            } catch {
                try? await counter.close()
                await store.close()
                await writer.close()
                throw error
            }
            try? await counter.close()
            await store.close()
            await writer.close()
        }
    }
}
