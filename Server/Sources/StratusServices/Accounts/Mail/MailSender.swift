import Foundation
import Logging
import ServiceLifecycle
import StratusMail
import StratusStore
import Synchronization

/// Sends the store's queued mail through the SMTP server, in the one process that holds the `mail-delivery`
/// lease, and retries what fails.
///
/// It looks at the queue when mail is queued anywhere (``StoreEvent/mailQueued``) and every few seconds besides
/// (when retries fall due, or another node's lease lapsed). The lease is held again before each message, and
/// outlasts the SMTP client's deadline for one, so a node that stalls loses it before another sends the same
/// message. A message the SMTP server refuses for good (`5xx`), or that still fails after ``retryDelays`` run
/// out, is given up on; its failure stays listed for the console.
package final class MailSender: Service, Sendable {
    package let store: any Store
    package let client: SMTPClient?
    package let logger: Logger
    private let lease: Lease
    private let wakeUps: StoreWakeUps
    /// Seconds before each retry (``ServerConfiguration/mailRetryDelays``).
    package let retryDelays: [Int64]
    /// The longest wait between looks at the queue, in seconds.
    package let pollInterval: Double = 5
    private let warnedUnconfigured = Mutex(false)

    package init(store: any Store, configuration: ServerConfiguration, logger: Logger) throws {
        self.store = store
        client = try configuration.smtp.map { try SMTPClient(settings: $0) }
        retryDelays = configuration.mailRetryDelays
        let nodeName = configuration.nodeName
        self.logger = logger
        if client != nil, configuration.mailFrom == nil {
            logger.warning("mail goes out from no-reply@ the host each request came to (no-reply@[127.0.0.1] for an address) unless a container names its sender; set --smtp-from to choose one")
        }
        lease = Lease(name: "mail-delivery", holder: Lease.holder(onNode: nodeName), duration: 60_000)
        wakeUps = StoreWakeUps(store: store, on: .mailQueued)
    }

    package func run() async throws {
        await wakeUps.run(every: .seconds(pollInterval)) { await self.sendDue() }
        try? await lease.release(in: store)
    }

    /// Sends what is due, if this process holds the lease.
    package func sendDue() async {
        do {
            // A process that cannot send leaves the lease to one that can.
            guard let client else {
                if !warnedUnconfigured.withLock({ $0 }), try await store.nextMailDue() != nil {
                    warnedUnconfigured.withLock { $0 = true }
                    logger.warning("mail is queued, but no SMTP server is configured (--smtp-url); it waits until one is")
                }
                return
            }
            while try await lease.hold(in: store) {
                let due = try await store.dueMail(now: ServerClock.now(), limit: 20)
                if due.isEmpty { break }
                for queued in due {
                    guard try await lease.hold(in: store) else { return }
                    try await send(queued, with: client)
                }
            }
        } catch {
            logger.warning("the mail queue could not be read", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
    }

    private func send(_ queued: QueuedMail, with client: SMTPClient) async throws {
        let mail = queued.mail
        let message = MailMessage(
            fromAddress: mail.senderAddress, fromName: mail.senderName, to: mail.recipient, subject: mail.subject, text: mail.textBody,
            html: mail.htmlBody
        )
        do {
            try await client.send(message)
            try await store.markMailSent(id: queued.id, at: ServerClock.now())
            logger.info("mail sent", metadata: ["stratus.mail.kind": "\(mail.kind)", "stratus.mail.id": "\(queued.id)"])
        } catch let error as MailError {
            let retry = error.isPermanent || queued.attempts >= retryDelays.count
                ? nil : ServerClock.now() + retryDelays[queued.attempts] * 1000
            try await store.markMailFailed(id: queued.id, error: error.message, retryAt: retry)
            logger.warning(
                retry == nil ? "mail given up on" : "mail not sent; it is tried again later",
                metadata: ["stratus.mail.id": "\(queued.id)", "stratus.error": "\(error.message)"]
            )
        }
    }
}
