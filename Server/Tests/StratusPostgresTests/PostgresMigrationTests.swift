import Foundation
@testable import StratusPostgres
import StratusStore
import StratusStoreTesting
import Testing

@Suite struct PostgresMigrationTests {
    @Test("servers starting at once against an empty database migrate it once, without racing")
    func concurrentStarts() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            let configuration = try testConfiguration(database.url, poolSize: 2)
            let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await PostgresStore.connect(configuration: configuration, logger: quietLogger) }
                }
                var stores: [PostgresStore] = []
                for try await store in group { stores.append(store) }
                return stores
            }
            #expect(stores.count == 4)
            for store in stores { await store.close() }
            let versions = try await PostgreSQLServer.rows(database.url, "SELECT version FROM stratus_migrations ORDER BY version")
            #expect(versions == (1...PostgresMigrations.latestVersion).map(String.init), "each migration applied once")
        }
    }

    @Test("a database migrated by a newer version is refused, saying why")
    func newerDatabase() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            let configuration = try testConfiguration(database.url, poolSize: 2)
            try await PostgresStore.connect(configuration: configuration, logger: quietLogger).close()
            try await PostgreSQLServer.psql(database.url, "INSERT INTO stratus_migrations (version, name) VALUES (999, 'from the future')")
            await #expect {
                try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            } throws: { error in
                (error as? StorageError)?.message.contains("migrated by a newer version of Stratus (schema version 999") == true
            }
        }
    }

    /// The 5-second bound itself is checked end to end, on a server process (PostgresOutageEndToEndTests); here,
    /// with every test of the suite sharing two cores, only that the wait ends.
    @Test("a database that cannot be reached is unavailable, and the wait for it ends")
    func unreachable() async throws {
        let start = ContinuousClock.now
        await #expect {
            try await PostgresStore.connect(configuration: .init(url: "postgres://nobody:x@127.0.0.1:9/none?sslmode=disable"), logger: quietLogger)
        } throws: { error in
            (error as? StorageError)?.code == .unavailable
        }
        // Generous: a machine building beside the suite has stretched this past 100 s; a wait that never ends fails.
        #expect(ContinuousClock.now - start < .seconds(300))
    }
}

extension PostgresMigrationTests {
    @Test("a database that does not exist is refused at start, saying so")
    func missingDatabase() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        await database.remove()
        var configuration = try testConfiguration(database.url, poolSize: 2)
        configuration.connectionWait = .seconds(5)
        await #expect {
            try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
        } throws: { error in
            (error as? StorageError)?.message.contains("does not exist") == true
        }
    }
}
