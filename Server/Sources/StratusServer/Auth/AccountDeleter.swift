import Foundation
import Logging
import ServiceLifecycle
import StratusStore

/// Finishes account deletions that a crash interrupted: every minute (``LeasedChore``), in the one process that
/// holds the `account-deletion` lease, each account still marked as being deleted is deleted to the end.
///
/// A deletion asked for over HTTP runs to its end in the request; this is the safety net behind it.
struct AccountDeleter: Service {
    let store: any Store
    let configuration: ServerConfiguration
    let logger: Logger

    func run() async throws {
        let lease = Lease(name: "account-deletion", holder: Lease.holder(onNode: configuration.nodeName), duration: 180_000)
        let interval = Duration.milliseconds(Int64(configuration.accountDeletionSweepInterval * 1000))
        await LeasedChore.run(lease, store: store, every: interval, logger: logger, failure: "interrupted account deletions could not be finished") {
            try await finishInterrupted()
        }
    }

    /// Deletes every account marked as being deleted.
    func finishInterrupted() async throws {
        for account in try await store.accountsBeingDeleted(limit: 100) {
            guard let container = try await store.container(id: account.containerID) else { continue }
            try await AccountDeletion.finish(account, publicRecords: container.accountSettings.deletedUserPublicRecords, store: store)
            logger.info("finished deleting an account", metadata: ["stratus.user": "\(account.userRecordName)"])
        }
    }
}
