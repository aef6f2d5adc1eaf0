import Logging
import ServiceLifecycle
import StratusStore

/// A background chore that runs every so often in the one process holding its lease: asset collection,
/// notification expiry, finishing interrupted account deletions.
///
/// It waits `interval`, runs `chore` if this process holds `lease`, and again, until graceful shutdown; a failed
/// run is logged and tried again at the next. On shutdown the lease is given up, so that another node takes the
/// chore at once rather than when the lease expires.
package enum LeasedChore {
    package static func run(
        _ lease: Lease, store: any Store, every interval: Duration, logger: Logger, failure: String, _ chore: @escaping @Sendable () async throws -> Void
    ) async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    if try await lease.hold(in: store) { try await chore() }
                } catch {
                    logger.warning("\(failure)", metadata: ["stratus.error": "\(String(reflecting: error))"])
                }
            }
        }
        try? await lease.release(in: store)
    }
}
