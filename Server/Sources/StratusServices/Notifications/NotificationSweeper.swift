import Foundation
import Logging
import ServiceLifecycle
import StratusStore

/// Forgets courier queues past their time-to-live, and notifications older than it, every minute, in the one
/// process that holds the `notification-expiry` lease.
package struct NotificationSweeper: Service {
    package let store: any Store
    package let configuration: ServerConfiguration
    package let logger: Logger

    package func run() async throws {
        let lease = Lease(name: "notification-expiry", holder: Lease.holder(onNode: configuration.nodeName), duration: 180_000)
        await LeasedChore.run(lease, store: store, every: .seconds(60), logger: logger, failure: "notification sweep failed") {
            try await sweep()
        }
    }

    package func sweep(now: Date = Date()) async throws {
        let milliseconds = Int64(now.timeIntervalSince1970 * 1000)
        try await store.removeExpiredNotifications(
            now: milliseconds, createdBefore: milliseconds - Int64(configuration.notificationQueueLifetime) * 1000
        )
    }

    package init(store: any Store, configuration: ServerConfiguration, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }
}
