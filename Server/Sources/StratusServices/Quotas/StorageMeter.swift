import Logging
import ServiceLifecycle
import StratusStore

/// Measures every database's storage each ``ServerConfiguration/usageInterval``, in the one process holding the
/// `storage-measurement` lease; ``StorageQuotas`` on every node refuses writes by what it found.
package struct StorageMeter: Service {
    package let store: any Store
    package let configuration: ServerConfiguration
    package let logger: Logger

    package func run() async throws {
        let interval = max(1, configuration.usageInterval)
        let lease = Lease(
            name: "storage-measurement", holder: Lease.holder(onNode: configuration.nodeName), duration: max(60_000, Int64(interval * 3_000))
        )
        await LeasedChore.run(
            lease, store: store, every: .milliseconds(Int64(interval * 1000)), logger: logger, failure: "measuring storage failed"
        ) {
            try await store.measureStorage(now: ServerClock.now())
        }
    }

    package init(store: any Store, configuration: ServerConfiguration, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }
}
