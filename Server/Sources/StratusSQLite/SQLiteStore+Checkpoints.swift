import Foundation
import GRDB
import Logging
import ServiceLifecycle
import StratusStore

extension SQLiteStore: Service {
    /// The store's background work: every 50 ms, reads the events other processes committed (this process's own
    /// are read as it commits them); every quarter second, advances pending index builds
    /// (SQLiteStore+IndexBuilds); every minute, prunes old store events. Index builds and pruning run in the one
    /// process that holds their lease. The write-ahead log is copied back by the writer itself, between group
    /// commits (``WALCheckpoints``). Runs until cancelled or asked to shut down gracefully; a failed chore is
    /// logged and tried again at the next tick, never fatal to the server.
    public func run() async throws {
        let housekeeping = StoreHousekeeping(store: self, chores: [
            // Pending index builds advance a chunk per write, leaving room for other writes between.
            .init("index build", every: .zero, lease: Lease(name: "index-builds"), when: { !self.indexBuilds.isEmpty }) {
                while try await self.continueIndexBuild() {}
            },
            .init("pruning store events", every: .seconds(60), lease: Lease(name: "store-event-pruning")) {
                try await self.pruneEvents(now: Int64(Date().timeIntervalSince1970 * 1000))
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
