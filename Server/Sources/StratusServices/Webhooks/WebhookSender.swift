import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import ServiceLifecycle
import StratusStore
import Synchronization

/// Delivers queued webhook events, in the one process that holds the `webhook-delivery` lease: at least once, one at
/// a time per endpoint and zone (so in commit order there), signed with the endpoint's secrets, each attempt with a
/// deadline. A failure is retried after growing pauses (``ServerConfiguration/webhookRetryDelays``), holding back the
/// events behind it; an endpoint that fails for ``ServerConfiguration/webhookDisableAfter`` is turned off, which the
/// console shows. The queue lives in the store, so a crash loses nothing: another node takes the lease and goes on.
package final class WebhookSender: Service, Sendable {
    package let store: any Store
    package let configuration: ServerConfiguration
    package let logger: Logger
    private let lease: Lease
    private let wakeUps: StoreWakeUps
    /// Runs the `afterSave` functions whose events share this queue.
    private let functions: (any BackgroundFunctions)?

    package init(store: any Store, configuration: ServerConfiguration, logger: Logger, functions: (any BackgroundFunctions)? = nil) {
        self.store = store
        self.functions = functions
        self.configuration = configuration
        self.logger = logger
        // The lease outlasts one round of deliveries (they go in parallel, each within its deadline) and is held again
        // before each round; a node that dies gives it up to another within that time.
        lease = Lease(
            name: "webhook-delivery", holder: Lease.holder(onNode: configuration.nodeName),
            duration: Int64(configuration.webhookTimeout * 1000) * 2 + 5_000
        )
        wakeUps = StoreWakeUps(store: store, on: .webhooksQueued)
    }

    package func run() async throws {
        await wakeUps.run(every: .milliseconds(Int64(configuration.webhookPollInterval * 1000))) { await self.deliverDue() }
        try? await lease.release(in: store)
    }

    /// When delivered events were last pruned.
    private let lastPruned = Mutex(ContinuousClock.now - .seconds(3600))

    /// Delivers what is due, in rounds, while this process holds the lease; hourly, forgets deliveries older than
    /// ``ServerConfiguration/webhookDeliveryRetention``.
    package func deliverDue() async {
        do {
            if try await lease.hold(in: store), lastPruned.withLock({ ContinuousClock.now - $0 >= .seconds(3600) }) {
                lastPruned.withLock { $0 = ContinuousClock.now }
                let cutoff = ServerClock.now() - Int64(configuration.webhookDeliveryRetention * 1000)
                _ = try await store.pruneWebhookDeliveries(deliveredBefore: cutoff)
            }
            while try await lease.hold(in: store) {
                let due = try await store.dueWebhookDeliveries(now: ServerClock.now(), limit: 32)
                if due.isEmpty { break }
                var endpoints: [String: WebhookEndpoint] = [:]
                for delivery in due where endpoints[delivery.endpointID] == nil {
                    endpoints[delivery.endpointID] = try await store.webhookEndpoint(id: delivery.endpointID, containerID: delivery.containerID)
                }
                let known = endpoints
                await withTaskGroup(of: Void.self) { group in
                    for delivery in due {
                        guard let endpoint = known[delivery.endpointID] else { continue }
                        group.addTask { await self.deliver(delivery, to: endpoint) }
                    }
                }
            }
        } catch {
            logger.warning("webhook deliveries could not be read", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
    }

    /// One attempt at one delivery, noted in the store.
    private func deliver(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) async {
        let started = ContinuousClock.now
        let attempt = await send(delivery, to: endpoint)
        let elapsed = ContinuousClock.now - started
        let now = ServerClock.now()
        let result = WebhookAttempt(
            statusCode: attempt.status, response: attempt.response, latency: elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000,
            at: now
        )
        let delays = configuration.webhookRetryDelays
        let delay = delays.isEmpty ? 60 : delays[min(delivery.attempts, delays.count - 1)]
        do {
            try await store.recordWebhookAttempt(result, deliveryID: delivery.id, retryAt: now + Int64(delay * 1000))
            if !result.succeeded, let since = endpoint.failingSince ?? Optional(now), now - since >= Int64(configuration.webhookDisableAfter * 1000) {
                let reason = "every delivery failed since \(WebhookDelivery.timestamp(since)); last: \(attempt.status) \(attempt.response.prefix(200))"
                try await store.disableWebhookEndpoint(id: endpoint.id, containerID: endpoint.containerID, reason: reason)
                logger.warning("a webhook endpoint was turned off", metadata: ["stratus.webhook": "\(endpoint.id)", "stratus.error": "\(reason)"])
            }
        } catch {
            logger.warning("a webhook attempt could not be noted", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
    }

    /// Sends the event: the status (0 when no answer came) and the start of the reply, or what went wrong. An
    /// `afterSave` function's endpoint runs the function instead.
    private func send(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) async -> (status: Int, response: String) {
        if let function = FunctionBinding.functionName(inEndpointURL: endpoint.url) {
            guard let functions else { return (0, "this server runs no functions") }
            return await functions.afterSave(delivery, function: function)
        }
        if let refusal = await WebhookTargets.checked(endpoint.url, allowPrivate: configuration.webhooksAllowPrivate) {
            return (0, refusal)
        }
        let secrets: [String]
        do {
            secrets = try endpoint.sealedSecrets.map {
                try configuration.secretsKeys.open($0, context: SealingContext.webhookSecret(endpoint.containerID, endpoint.id))
            }
        } catch {
            return (0, (error as? ServiceError)?.message ?? "the endpoint's secret does not open")
        }
        let timestamp = ServerClock.now() / 1000
        var request = HTTPClientRequest(url: endpoint.url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "Stratus-Webhooks/1")
        request.headers.add(name: "webhook-id", value: delivery.eventID)
        request.headers.add(name: "webhook-timestamp", value: String(timestamp))
        request.headers.add(name: "webhook-signature", value: WebhookSignature.header(id: delivery.eventID, timestamp: timestamp, body: delivery.body, secrets: secrets))
        request.body = .bytes(ByteBuffer(string: delivery.body))
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(configuration.webhookTimeout * 1000)))
            let body = try await response.body.collect(upTo: 64 * 1024)
            return (Int(response.status.code), String(String(buffer: body).prefix(500)))
        } catch {
            return (0, "no answer: \(error)")
        }
    }
}
