import Foundation
import GRDB
import Logging
import ServiceLifecycle
import StratusStore

extension SQLiteStore: Service {
    /// The store's background work: every 50 ms, reads the events other processes committed (this process's own
    /// are read as it commits them); every quarter second, advances pending index builds
    /// (SQLiteStore+IndexBuilds), then copies the write-ahead log into the database file from a connection
    /// of its own; every minute, prunes old store events. Index builds and pruning run in the one process
    /// that holds their lease; checkpoints run in every process (SQLite lets one run at a time).
    ///
    /// Without it SQLite checkpoints on the writer connection as part of a commit, which stalls every
    /// write waiting in the group commit behind the checkpoint's copy and fsync. A passive checkpoint
    /// never blocks the writer or readers. Runs until cancelled or asked to shut down gracefully; a
    /// failed checkpoint is logged and tried again at the next tick, never fatal to the server. The
    /// store works without this service (SQLite's automatic checkpoint is kept as a safety net).
    public func run() async throws {
        let checkpointer = try DatabaseQueue(path: configuration.path)
        let housekeeping = StoreHousekeeping(store: self, chores: [
            // Pending index builds advance a chunk per write, leaving room for other writes between.
            .init("index build", every: .zero, lease: Lease(name: "index-builds"), when: { !self.indexBuilds.isEmpty }) {
                while try await self.continueIndexBuild() {}
            },
            .init("pruning store events", every: .seconds(60), lease: Lease(name: "store-event-pruning")) {
                try await self.pruneEvents(now: Int64(Date().timeIntervalSince1970 * 1000))
            },
            .init("checkpoint", every: .zero) {
                do {
                    _ = try await checkpointer.writeWithoutTransaction { db in try db.checkpoint(.passive) }
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                    // Another checkpoint is running (SQLite's automatic one): this turn has nothing to do.
                }
            },
        ]) { chore, error in
            self.logger.warning("\(chore) failed", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await housekeeping.run() }
                group.addTask { await self.events.followOtherProcesses() }
            }
        }
    }
}
