import Foundation
import Logging
import ServiceLifecycle
import StratusStore

/// Forgets courier queues past their time-to-live, and notifications older than it, every minute.
struct NotificationSweeper: Service {
    let store: any Store
    let configuration: ServerConfiguration
    let logger: Logger

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: .seconds(60))
                } catch {
                    return
                }
                do {
                    try await sweep()
                } catch {
                    logger.warning("notification sweep failed", metadata: ["stratus.error": "\(error)"])
                }
            }
        }
    }

    func sweep(now: Date = Date()) async throws {
        let milliseconds = Int64(now.timeIntervalSince1970 * 1000)
        try await store.removeExpiredNotifications(
            now: milliseconds, createdBefore: milliseconds - Int64(configuration.notificationQueueLifetime) * 1000
        )
    }
}
