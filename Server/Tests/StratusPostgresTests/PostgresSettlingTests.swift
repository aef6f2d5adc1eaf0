import Logging
import StratusModel
@testable import StratusPostgres
import StratusStore
import StratusStoreTesting
import Synchronization
import Testing

@Suite("PostgreSQL change feeds and transactions still open")
struct PostgresSettlingTests {
    @Test("a feed waits for a writer that began before the last commit, answers without what is unsettled, names the writer, and the next sync has everything")
    func feedWaitsForEarlierWriter() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            let logs = CapturedLogs()
            let store = try await PostgresStore.connect(configuration: try testConfiguration(database.url, poolSize: 4), logger: logs.logger)
            do {
                let owner = "_a11ce000000000000000000000000000"
                let privateDatabase = DatabaseRef.privateDatabase("iCloud.test.Settling", .development, owner: owner)
                _ = try await store.modifyZones([.create(zoneName: "Notes")], in: privateDatabase)
                let zone = privateDatabase.zone("Notes")
                func save(_ name: String) async throws {
                    let results = try await store.modifyRecords(RecordBatch(
                        zone: zone, operations: [RecordOperation(type: .create, recordName: name, recordType: "Note", fields: [:])],
                        atomic: true, caller: Caller(userRecordName: owner), timestamp: 1_700_000_000_000
                    ))
                    guard case .saved? = results.first else { throw StorageError(.internalFailure, "\(name) not saved: \(results)") }
                }
                try await save("first")
                let synced = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: nil, limit: 200))
                #expect(synced.changes.map(\.recordName) == ["first"])

                // Another connection takes a transaction id and leaves its transaction open past the feed's wait.
                try await store.client.withConnection { other in
                    try await other.run("BEGIN", logger: quietLogger)
                    let taken = try await other.rows("SELECT pg_current_xact_id()::text, pg_backend_pid()", as: (String, Int32).self, logger: quietLogger)
                    let pid = taken.map(\.1)
                    try await save("second")
                    let page = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: synced.syncToken, limit: 200))
                    #expect(page.changes.isEmpty, "a change after an open writer's id is not settled yet")
                    let warning = logs.entries.first { $0.message.contains("before every committed change had settled") }
                    #expect(warning?.metadata["postgres.pid"] == pid.first.map { "\($0)" })
                    #expect(warning?.metadata["postgres.state"] == "idle in transaction")
                    try await other.run("ROLLBACK", logger: quietLogger)
                }

                let next = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: synced.syncToken, limit: 200))
                #expect(next.changes.map(\.recordName) == ["second"])
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }
}

/// Keeps what is logged through ``logger``, for tests that check a warning and what it says.
final class CapturedLogs: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])

    var entries: [Entry] { storage.withLock { $0 } }

    var logger: Logger {
        var logger = Logger(label: "stratus.postgres.tests") { _ in Handler(logs: self) }
        logger.logLevel = .warning
        return logger
    }

    fileprivate func append(_ entry: Entry) {
        storage.withLock { $0.append(entry) }
    }

    private struct Handler: LogHandler {
        let logs: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .warning

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }
            logs.append(Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}
