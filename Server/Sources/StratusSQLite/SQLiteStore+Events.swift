import Foundation
import GRDB
import StratusStore

extension SQLiteStore: EventStore {
    public func observeEvents(_ observer: @escaping @Sendable (StoreEventDelivery) -> Void) {
        events.observe(observer)
    }

    public func catchUpEvents() async throws {
        do {
            try events.catchUp()
        } catch {
            throw StorageError.translating(error)
        }
    }

    /// Reads hold a reader connection each; writes share the one writer, and count as holding it while queued.
    public func statistics() -> StoreStatistics {
        let counts = connectionUse.counts
        return StoreStatistics(
            connectionsInUse: counts.inUse, connectionsAwaited: counts.awaited, connectionLimit: configuration.maximumReaderCount + 1,
            eventLagMilliseconds: events.lastLagMilliseconds
        )
    }

    public var location: String { configuration.path }

    public var isReachedOverNetwork: Bool { false }

    /// Copies the write-ahead log back into the file and closes it.
    public func close() async {
        do {
            try await pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
            try pool.close()
        } catch {
            logger.warning("closing the SQLite file failed", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
    }

    public func checkAvailable() async throws {
        _ = try await read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM meta") }
    }

    /// Removes events older than ``StorePolicy/eventRetention``.
    func pruneEvents(now: Int64) async throws {
        try await write { batch in
            try batch.db.execute(sql: "DELETE FROM store_events WHERE created_at < ?", arguments: [now - StorePolicy.eventRetention])
        }
    }

}

extension SQLiteStore: CachingStore {
    public func forgetSchemas() {
        schemas.forgetAll()
    }

    /// Reads them on the calling thread: one short read of a small table.
    public func reloadIndexBuilds() {
        do {
            indexBuilds.replace(with: try pool.read { db in try db.read(SchemaTables.allBuilds) })
        } catch {
            logger.warning("reading index builds failed", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
    }
}
