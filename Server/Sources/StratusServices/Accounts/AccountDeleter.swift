import Foundation
import Logging
import ServiceLifecycle
import StratusStore

/// Finishes account deletions that a crash interrupted, and removes anonymous accounts past their container's
/// period: every minute (``LeasedChore``), in the one process that holds the `account-deletion` lease.
///
/// A deletion asked for over HTTP runs to its end in the request; this is the safety net behind it.
package struct AccountDeleter: Service {
    package let store: any Store
    package let configuration: ServerConfiguration
    package let logger: Logger

    package func run() async throws {
        let lease = Lease(name: "account-deletion", holder: Lease.holder(onNode: configuration.nodeName), duration: 180_000)
        let interval = Duration.milliseconds(Int64(configuration.accountDeletionSweepInterval * 1000))
        await LeasedChore.run(lease, store: store, every: interval, logger: logger, failure: "interrupted account deletions could not be finished") {
            try await finishInterrupted()
            try await expireAnonymousAccounts()
        }
    }

    /// Deletes the anonymous accounts that nothing was attached to and that nobody used for their container's
    /// ``AccountSettings/anonymousAccountLifetimeDays``, as of `now`.
    package func expireAnonymousAccounts(now: Int64 = ServerClock.now()) async throws {
        for container in try await store.containers() where container.accountSettings.anonymousAccountLifetimeDays > 0 {
            let cutoff = now - Int64(container.accountSettings.anonymousAccountLifetimeDays) * 86_400_000
            for account in try await store.anonymousAccounts(containerID: container.id, inactiveSince: cutoff, limit: 100) {
                let begun = try await store.beginAccountDeletion(containerID: account.containerID, userRecordName: account.userRecordName)
                try await AccountDeletion.finish(begun, publicRecords: container.accountSettings.deletedUserPublicRecords, store: store)
                logger.info("removed an unused anonymous account", metadata: ["stratus.user": "\(account.userRecordName)"])
            }
        }
    }

    /// Deletes every account marked as being deleted.
    package func finishInterrupted() async throws {
        for account in try await store.accountsBeingDeleted(limit: 100) {
            guard let container = try await store.container(id: account.containerID) else { continue }
            try await AccountDeletion.finish(account, publicRecords: container.accountSettings.deletedUserPublicRecords, store: store)
            logger.info("finished deleting an account", metadata: ["stratus.user": "\(account.userRecordName)"])
        }
    }

    package init(store: any Store, configuration: ServerConfiguration, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }
}
