import Foundation
import PostgresNIO
import StratusStore

extension PostgresStore: EventStore {
    public func observeEvents(_ observer: @escaping @Sendable (StoreEventDelivery) -> Void) {
        events.observe(observer)
    }

    public func catchUpEvents() async throws {
        do {
            try await events.catchUp()
        } catch {
            throw StorageError.translating(error)
        }
    }

    public func statistics() -> StoreStatistics {
        let counts = connectionUse.counts
        return StoreStatistics(
            connectionsInUse: counts.inUse, connectionsAwaited: counts.awaited, connectionLimit: configuration.poolSize,
            eventLagMilliseconds: events.lastLagMilliseconds
        )
    }

    public var location: String { configuration.redactedDescription }

    public var isReachedOverNetwork: Bool { true }

    public func checkAvailable() async throws {
        try await read { connection in try await connection.run("SELECT 1", logger: self.logger) }
    }

    /// Removes events older than ``StorePolicy/eventRetention`` and records the newest position removed.
    func pruneEvents(now: Int64) async throws {
        try await writeUnpositioned { connection in
            try await connection.run(
                """
                WITH removed AS (DELETE FROM store_events WHERE created_at < \(now - StorePolicy.eventRetention) RETURNING position)
                INSERT INTO meta (key, value)
                SELECT 'events_pruned_through', convert_to(MAX(position)::text, 'UTF8') FROM removed HAVING COUNT(*) > 0
                ON CONFLICT (key) DO UPDATE SET value = convert_to(
                    GREATEST(convert_from(meta.value, 'UTF8')::bigint, convert_from(excluded.value, 'UTF8')::bigint)::text, 'UTF8')
                """,
                logger: self.logger
            )
        }
    }
}

extension PostgresStore: CachingStore {
    public func forgetSchemas() {
        schemas.forgetAll()
    }

    /// Reads them in a task of its own: event delivery must not wait for a connection.
    public func reloadIndexBuilds() {
        Task {
            do {
                indexBuilds.replace(with: try await read(SchemaTables.allBuilds))
            } catch {
                logger.warning("reading index builds failed", metadata: ["stratus.error": "\(String(reflecting: error))"])
            }
        }
    }
}
