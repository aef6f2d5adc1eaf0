import StratusPostgres
import StratusStore
import StratusStoreTesting
import Testing

/// One case at a time: each has a database and a pool of its own, and a test cluster allows a few hundred
/// connections.
@Suite(.serialized) struct PostgresConformanceTests {
    @Test("the PostgreSQL store meets the storage contract", arguments: StoreConformance.cases)
    func conformance(_ check: ConformanceCase) async throws {
        try await withPostgresStore { store, _ in
            try await check.run(store)
        }
    }
}
