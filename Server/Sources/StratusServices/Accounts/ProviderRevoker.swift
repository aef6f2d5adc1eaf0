import Foundation
import Logging
import ServiceLifecycle
import StratusStore

/// Revokes the Sign in with Apple tokens of deleted accounts (and of unlinked Apple identities), as Apple requires:
/// the store queues each one in the transaction that deletes its identity (``PendingRevocation``), and the one process
/// holding the `provider-revocations` lease sends them, retrying with growing pauses while Apple is down or refuses,
/// so that a deletion never waits for Apple and no revocation is lost to a crash.
package struct ProviderRevoker: Service {
    package let store: any Store
    package let tokens: AppleTokens
    package let configuration: ServerConfiguration
    package let logger: Logger

    package func run() async throws {
        let lease = Lease(name: "provider-revocations", holder: Lease.holder(onNode: configuration.nodeName), duration: 180_000)
        let interval = Duration.milliseconds(Int64(configuration.revocationSweepInterval * 1000))
        await LeasedChore.run(lease, store: store, every: interval, logger: logger, failure: "provider tokens could not be revoked") {
            try await revokeDue()
        }
    }

    /// Sends every revocation that is due at `now`.
    package func revokeDue(now: Int64 = ServerClock.now()) async throws {
        for pending in try await store.dueRevocations(now: now, limit: 50) {
            do {
                try await revoke(pending)
                try await store.finishRevocation(containerID: pending.containerID, provider: pending.provider, subject: pending.subject)
                logger.info("revoked a deleted account's Apple tokens", metadata: ["stratus.container": "\(pending.containerID)"])
            } catch {
                let reason = (error as? ServiceError)?.message ?? String(describing: error)
                let delays = configuration.revocationRetryDelays
                guard pending.attempts + 1 < configuration.revocationAttempts, !delays.isEmpty else {
                    try await store.finishRevocation(containerID: pending.containerID, provider: pending.provider, subject: pending.subject)
                    logger.error(
                        "gave up revoking a deleted account's \(pending.provider) tokens",
                        metadata: ["stratus.container": "\(pending.containerID)", "stratus.error": "\(reason)"]
                    )
                    continue
                }
                let delay = delays[min(pending.attempts, delays.count - 1)]
                try await store.postponeRevocation(
                    containerID: pending.containerID, provider: pending.provider, subject: pending.subject, until: now + Int64(delay * 1000), error: reason
                )
            }
        }
    }

    private func revoke(_ pending: PendingRevocation) async throws {
        guard pending.provider == "apple" else { return }
        guard let container = try await store.container(id: pending.containerID) else { return }
        let opened = try configuration.secretsKeys.open(
            pending.sealedToken, context: SealingContext.refreshToken(pending.containerID, pending.provider, pending.subject)
        )
        let kept = try JSONDecoder().decode(AppleTokens.KeptToken.self, from: Data(opened.utf8))
        try await tokens.revoke(kept, container: container)
    }

    package init(store: any Store, tokens: AppleTokens, configuration: ServerConfiguration, logger: Logger) {
        self.store = store
        self.tokens = tokens
        self.configuration = configuration
        self.logger = logger
    }
}
