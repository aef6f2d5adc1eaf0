import Foundation
import PostgresNIO
import StratusModel
import StratusPostgres
import StratusStore
import StratusStoreTesting
import Testing

/// The planner's statistics follow a fast-growing table at once, not a minute later.
@Suite struct PostgresStatisticsTests {
    @Test("after a bulk load, the tables queries read are analyzed; unchanged ones are left alone")
    func bulkLoadIsAnalyzed() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            let configuration = try testConfiguration(database.url, poolSize: 2)
            let store = try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            do {
                let owner = PostgresStatementCountTests.owner
                let zone = DatabaseRef.privateDatabase(PostgresStatementCountTests.container, .development, owner: owner).zone("Notes")
                _ = try await store.modifyZones([.create(zoneName: "Notes")], in: zone.database)
                for batch in 0..<8 {
                    _ = try await store.modifyRecords(RecordBatch(
                        zone: zone, operations: PostgresStatementCountTests.creates(200, prefix: "b\(batch)-"), atomic: true,
                        caller: Caller(userRecordName: owner), timestamp: 1_700_000_000_000
                    ))
                }
                // Each connection reports its changes to the statistics at most once a second; autovacuum may analyze
                // a table first, which is as good.
                let counter = try await PostgresConnection.connect(configuration: try configuration.connectionConfiguration(), id: 1, logger: quietLogger)
                func stale() async throws -> [String] {
                    var found: [String] = []
                    let rows = try await counter.query(
                        """
                        SELECT relname::text FROM pg_stat_user_tables WHERE relname IN ('records', 'field_index')
                            AND n_mod_since_analyze > GREATEST(1000, n_live_tup / 10)
                        """,
                        logger: quietLogger
                    )
                    for try await name in rows.decode(String.self) { found.append(name) }
                    return found
                }
                func autoanalyzed(_ table: String) async throws -> Bool {
                    let rows = try await counter.query(
                        "SELECT last_autoanalyze IS NOT NULL FROM pg_stat_user_tables WHERE relname = \(table)", logger: quietLogger
                    )
                    for try await done in rows.decode(Bool.self) { return done }
                    return false
                }
                var analyzed: Set<String> = []
                // What was analyzed by then is judged below, whether or not every table caught up.
                try? await Polling.until("the tables are analyzed", within: 10, every: .milliseconds(200)) {
                    analyzed.formUnion(try await store.refreshStatistics())
                    let byAutovacuum = try await autoanalyzed("records")
                    return try await stale().isEmpty && (!analyzed.isEmpty || byAutovacuum)
                }
                let byAutovacuum = try await autoanalyzed("records")
                #expect(analyzed.contains("records") || byAutovacuum, "analyzed \(analyzed)")
                #expect(try await stale().isEmpty, "tables left with stale statistics")
                #expect(try await store.refreshStatistics().isEmpty, "nothing changed since")
                try? await counter.close()
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }
}
