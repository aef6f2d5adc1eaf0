import Foundation
@testable import StratusPostgres
import StratusStore
import StratusStoreTesting
import Synchronization
import Testing

@Suite struct PostgresConnectionWaitTests {
    @Test("with every connection busy, a call gives up as unavailable after the connection wait, and the next one runs once one is free")
    func busyPool() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            // The store waits long for connections, as tests under load need; the call measured below waits 1 s.
            let configuration = try testConfiguration(database.url, poolSize: 2)
            let store = try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            // The store runs as a server runs it: its service's event listener holds a connection of its own.
            let service = Task { try await store.run() }
            defer { service.cancel() }
            // The store's connections are all taken for 8 seconds.
            let holdersDone = FinishedCount()
            let holders = (0..<configuration.poolSize).map { _ in
                Task {
                    defer { holdersDone.count.withLock { $0 += 1 } }
                    try await store.read { connection in try await connection.run("SELECT pg_sleep(8)", logger: quietLogger) }
                }
            }
            let sleeping = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query = 'SELECT pg_sleep(8)' AND state = 'active'"
            let busyBy = ContinuousClock.now + .seconds(20)
            while try await PostgreSQLServer.rows(database.url, sleeping).first != "\(configuration.poolSize)" {
                guard ContinuousClock.now < busyBy else { throw StorageError(.internalFailure, "the holders never got their connections") }
                try await Task.sleep(for: .milliseconds(50))
            }
            let began = ContinuousClock.now
            await #expect {
                try await PostgresStore.withConnectionDeadline(.seconds(1), reachability: store.reachability) { started in
                    try await store.client.withConnection { connection in
                        try started()
                        try await connection.run("SELECT 1", logger: quietLogger)
                    }
                }
            } throws: { error in
                (error as? StorageError)?.code == .unavailable
            }
            let waited = ContinuousClock.now - began
            #expect(waited >= .milliseconds(900))
            // It gave up at its own deadline, while every connection was still held: not by getting one late.
            let finishedHolders = holdersDone.count.withLock { $0 }
            #expect(finishedHolders == 0, "the call gave up after \(waited), when \(finishedHolders) holders had already let go")
            // The store's own connection opened: a busy pool is not taken for a database that is down.
            try await store.reachability.refuseWhileUnreachable()
            #expect(!store.reachability.isUnreachable)
            for holder in holders { _ = try? await holder.value }
            // Once a connection is free, calls run again.
            try await store.read { connection in try await connection.run("SELECT 1", logger: quietLogger) }
        }
    }

    @Test("a call made after the store shut down (work still running while a server stops) fails at once as unavailable")
    func callAfterClose() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            let store = try await PostgresStore.connect(configuration: try testConfiguration(database.url, poolSize: 2), logger: quietLogger)
            try await store.checkAvailable()
            await store.close()
            // Background work still running when a server stops (a lease given up, a long poll) calls the store.
            let began = ContinuousClock.now
            await #expect {
                try await store.checkAvailable()
            } throws: { error in
                (error as? StorageError)?.code == .unavailable
            }
            #expect(ContinuousClock.now - began < .seconds(1), "refused without waiting for a connection")
        }
    }

    @Test("while the database is unreachable calls fail at once, calls made during the check wait for its verdict, and the store finds the database again by itself")
    func unreachableDatabase() async throws {
        let database = Mutex(false)
        let attempts = Atomic<Int>(0)
        let reachability = Reachability(logger: quietLogger) {
            attempts.add(1, ordering: .relaxed)
            try? await Task.sleep(for: .milliseconds(200))
            return database.withLock { $0 }
        }
        defer { reachability.stop() }
        try await reachability.refuseWhileUnreachable()
        #expect(attempts.load(ordering: .relaxed) == 0, "nothing is tried before something suggests the database is down")

        reachability.suspect()
        reachability.suspect()
        let began = ContinuousClock.now
        await #expect(throws: StorageError.self) { try await reachability.refuseWhileUnreachable() }
        #expect(ContinuousClock.now - began >= .milliseconds(150), "a call made during the check waited for its verdict")
        #expect(reachability.isUnreachable)
        await #expect(throws: StorageError.self) { try await reachability.refuseWhileUnreachable() }

        database.withLock { $0 = true }
        try await Polling.until("the database is found again without anyone calling", within: 60) { !reachability.isUnreachable }
        try await reachability.refuseWhileUnreachable()
        #expect(attempts.load(ordering: .relaxed) >= 2, "tried again while unreachable")
    }
}

/// How many tasks have finished, counted as each ends.
private final class FinishedCount: Sendable {
    let count = Mutex(0)
}
