import Foundation
@testable import StratusPostgres
import StratusStore
import StratusStoreTesting
import Testing

@Suite struct PostgresConnectionWaitTests {
    @Test("with every connection busy, a call gives up as unavailable after the connection wait, and the next one runs once one is free")
    func busyPool() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            var configuration = try testConfiguration(database.url, poolSize: 2)
            configuration.connectionWait = .seconds(1)
            let store = try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            defer { Task { await store.close() } }
            // The event listener holds a connection of its own; once it listens, the store's connections are
            // all taken for 4 seconds.
            try await Task.sleep(for: .milliseconds(500))
            let holders = (0..<configuration.poolSize).map { _ in
                Task { try await store.read { connection in try await connection.run("SELECT pg_sleep(4)", logger: quietLogger) } }
            }
            try await Task.sleep(for: .milliseconds(200))
            let began = ContinuousClock.now
            await #expect {
                try await store.read { connection in try await connection.run("SELECT 1", logger: quietLogger) }
            } throws: { error in
                (error as? StorageError)?.code == .unavailable
            }
            let waited = ContinuousClock.now - began
            #expect(waited >= .milliseconds(900))
            #expect(waited < .seconds(3))
            for holder in holders { _ = try? await holder.value }
            // Once a connection is free, calls run again.
            try await store.read { connection in try await connection.run("SELECT 1", logger: quietLogger) }
        }
    }
}
