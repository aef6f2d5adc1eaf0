import Logging
import StratusPostgres
import StratusStoreTesting

/// A store on a fresh database of the test server, or `nil` when there is no server outside CI (see
/// ``PostgreSQLServer``). `body` gets the store; the database is dropped afterwards.
func withPostgresStore(_ body: (PostgresStore, PostgreSQLServer.TestDatabase) async throws -> Void) async throws {
    guard let database = try await PostgreSQLServer.databaseForTest() else { return }
    try await withDatabaseRemoved(database) {
        let store = try await PostgresStore.connect(configuration: try testConfiguration(database.url, poolSize: 4), logger: quietLogger)
        do {
            try await body(store, database)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }
}

/// Runs `body`, then drops the test database, whether `body` throws or not.
func withDatabaseRemoved(_ database: PostgreSQLServer.TestDatabase, _ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch {
        await database.remove()
        throw error
    }
    await database.remove()
}

/// A store's configuration for tests: the whole test suite runs at once on two cores, so a connection may
/// take longer to come than the 5 seconds after which a server answers 503.
func testConfiguration(_ url: String, poolSize: Int) throws -> PostgresStore.Configuration {
    var configuration = try PostgresStore.Configuration(url: url, poolSize: poolSize)
    // A loaded machine (CI runs hundreds of tests at once on two cores) may take long to hand out a connection; the
    // tests wait for conditions, so only a failure takes this long.
    configuration.connectionWait = .seconds(120)
    return configuration
}

let quietLogger: Logger = {
    var logger = Logger(label: "stratus.postgres.tests")
    logger.logLevel = .critical
    return logger
}()

