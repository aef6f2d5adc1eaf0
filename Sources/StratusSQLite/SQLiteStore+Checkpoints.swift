import GRDB
import Logging
import ServiceLifecycle

extension SQLiteStore: Service {
    /// The store's background work, every quarter second: advances pending index builds
    /// (SQLiteStore+IndexBuilds), then copies the write-ahead log into the database file from a connection
    /// of its own.
    ///
    /// Without it SQLite checkpoints on the writer connection as part of a commit, which stalls every
    /// write waiting in the group commit behind the checkpoint's copy and fsync. A passive checkpoint
    /// never blocks the writer or readers. Runs until cancelled or asked to shut down gracefully; a
    /// failed checkpoint is logged and tried again at the next tick, never fatal to the server. The
    /// store works without this service (SQLite's automatic checkpoint is kept as a safety net).
    public func run() async throws {
        let checkpointer = try DatabaseQueue(path: configuration.path)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: .milliseconds(250))
                } catch {
                    return
                }
                do {
                    // Pending index builds advance a chunk per write, leaving room for other writes between.
                    while try await self.continueIndexBuild() {}
                } catch {
                    self.logger.warning("index build failed", metadata: ["stratus.error": "\(error)"])
                }
                do {
                    try await checkpointer.writeWithoutTransaction { db in
                        try db.checkpoint(.passive)
                    }
                } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                    // Another checkpoint is running (SQLite's automatic one): this tick has nothing to do.
                } catch {
                    self.logger.warning("checkpoint failed", metadata: ["stratus.error": "\(error)"])
                }
            }
        }
    }
}
