import Foundation
import StratusModel
@testable import StratusPostgres
import StratusStore
import StratusStoreTesting
import Synchronization
import Testing

@Suite struct PostgresEventTests {
    @Test("an event committed on one node is delivered on another by its next catch-up")
    func acrossNodes() async throws {
        try await withPostgresStore { nodeA, database in
            let nodeB = try await PostgresStore.connect(configuration: try testConfiguration(database.url, poolSize: 2), logger: quietLogger)
            defer { Task { await nodeB.close() } }
            let seen = Mutex<[StoreEvent]>([])
            nodeB.observeEvents { delivery in
                if case .committed(let events) = delivery { seen.withLock { $0 += events } }
            }
            try await nodeA.createServerKey(ServerKey(id: "k1", containerID: "iCloud.a", publicKeyPEM: "pem", role: nil, createdAt: 1))
            #expect(try await nodeB.serverKey(id: "k1") != nil)
            try await nodeA.revokeServerKey(id: "k1", containerID: "iCloud.a")
            try await nodeB.catchUpEvents()
            #expect(seen.withLock { $0 } == [.serverKeyRevoked(keyID: "k1")])
            #expect(try await nodeB.serverKey(id: "k1") == nil)
        }
    }

    @Test("a node is woken by another node's commit without asking (LISTEN/NOTIFY)")
    func notified() async throws {
        try await withPostgresStore { nodeA, database in
            // Node B reads the events on its own only every 10 minutes: within the test, only a notification wakes it.
            var configuration = try testConfiguration(database.url, poolSize: 2)
            configuration.eventPollInterval = .seconds(600)
            let nodeB = try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            // Node B runs as its server runs it: its service listens for other nodes' commits.
            let service = Task { try await nodeB.run() }
            defer { service.cancel() }
            let (stream, continuation) = AsyncStream.makeStream(of: StoreEvent.self)
            nodeB.observeEvents { delivery in
                if case .committed(let events) = delivery { events.forEach { continuation.yield($0) } }
            }
            // Give node B's listening connection time to start; its first read delivers nothing.
            try await Task.sleep(for: .seconds(1))
            try await nodeA.deleteSession(id: "s1")
            let event = await withTaskGroup(of: StoreEvent?.self) { group in
                group.addTask {
                    var iterator = stream.makeAsyncIterator()
                    return await iterator.next()
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(60))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                continuation.finish()
                return first
            }
            #expect(event == .sessionEnded(sessionID: "s1"))
        }
    }

    @Test("an event that commits late with an earlier position is delivered too, and every event once")
    func lateCommit() async throws {
        try await withPostgresStore { store, _ in
            let seen = Mutex<[StoreEvent]>([])
            store.observeEvents { delivery in
                if case .committed(let events) = delivery { seen.withLock { $0 += events } }
            }
            // A transaction that takes its position first and commits last, on a connection of its own.
            try await store.client.withConnection { connection in
                try await connection.run("BEGIN", logger: quietLogger)
                try await connection.run(
                    """
                    INSERT INTO store_events (position, body, created_at)
                    SELECT ((pg_current_xact_id()::text::bigint) << 20) + 1, '{"sessionEnded":{"sessionID":"slow"}}', 0
                    """,
                    logger: quietLogger
                )
                try await store.deleteSession(id: "fast")
                try await store.catchUpEvents()
                #expect(seen.withLock { $0 } == [.sessionEnded(sessionID: "fast")], "a later commit is not held back by an open writer")
                try await connection.run("COMMIT", logger: quietLogger)
            }
            try await store.catchUpEvents()
            try await store.catchUpEvents()
            #expect(seen.withLock { $0 } == [.sessionEnded(sessionID: "fast"), .sessionEnded(sessionID: "slow")])
        }
    }

    @Test("a lease is held by one holder at a time and passes on when it expires or is released")
    func leases() async throws {
        try await withPostgresStore { store, _ in
            #expect(try await store.acquireLease("sweep", holder: "a", now: 1000, duration: 100))
            #expect(try await !store.acquireLease("sweep", holder: "b", now: 1050, duration: 100))
            #expect(try await store.acquireLease("sweep", holder: "a", now: 1050, duration: 100))
            #expect(try await store.acquireLease("sweep", holder: "b", now: 1200, duration: 100))
            try await store.releaseLease("sweep", holder: "b")
            #expect(try await store.acquireLease("sweep", holder: "a", now: 1210, duration: 100))
        }
    }
}
