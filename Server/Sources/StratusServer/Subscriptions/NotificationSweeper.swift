import Foundation
import Logging
import ServiceLifecycle
import StratusStore

/// Forgets courier queues past their time-to-live, and notifications older than it, every minute, in the one
/// process that holds the `notification-expiry` lease.
struct NotificationSweeper: Service {
    let store: any Store
    let configuration: ServerConfiguration
    let logger: Logger

    func run() async throws {
        let lease = Lease(name: "notification-expiry", holder: Lease.holder(onNode: configuration.nodeName), duration: 180_000)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    return
                }
                do {
                    if try await lease.hold(in: store) { try await sweep() }
                } catch {
                    logger.warning("notification sweep failed", metadata: ["stratus.error": "\(String(reflecting: error))"])
                }
            }
        }
        // Given up, so that another node takes the job at once rather than when the lease expires.
        try? await lease.release(in: store)
    }

    func sweep(now: Date = Date()) async throws {
        let milliseconds = Int64(now.timeIntervalSince1970 * 1000)
        try await store.removeExpiredNotifications(
            now: milliseconds, createdBefore: milliseconds - Int64(configuration.notificationQueueLifetime) * 1000
        )
    }
}
