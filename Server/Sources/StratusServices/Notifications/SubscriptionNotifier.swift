import Foundation
import Logging
import ServiceLifecycle
import StratusModel
import StratusStore
import Synchronization

/// Turns committed record changes into notifications for the subscriptions they concern, and wakes this
/// process's clients waiting for notifications.
///
/// Everything it knows comes from the store: its index of subscriptions follows the store's subscription and
/// role events, and record changes reach it through the store's outbox (``PendingRecordEvent``), which it
/// empties in order while it holds the `subscription-matching` lease, so one process matches each change once
/// and a change committed before a crash is matched after it. Matching runs outside the write that made the
/// change.
package final class SubscriptionNotifier: Service {
    /// Work done in order, one at a time, by the notifier's task.
    private enum Work: Sendable {
        case reload(SubscriptionIndex.EntryKey)
        case remove(SubscriptionIndex.EntryKey)
        case reloadRoles(containerID: String, environment: Environment, user: String)
        case reloadAll
        case match
    }

    /// Outbox entries matched per round.
    package static let batchSize = 500
    /// How often a process that does not hold the lease checks whether the outbox is being emptied.
    package static let idleCheck = Duration.seconds(5)

    package let waiters = NotificationWaiters()
    private let store: any Store
    private let index = Mutex(SubscriptionIndex())
    /// Sends notifications to registered devices through Apple's push service, when configured.
    package let pushSender: APNsSender?
    private let metrics: ServerMetrics
    private let telemetry: TelemetryRecorder
    /// Short, so that after a crash the restarted process (or another) resumes matching within seconds.
    private let lease: Lease
    private let work: AsyncStream<Work>.Continuation
    private let queue: AsyncStream<Work>
    private let matchQueued = Mutex(false)
    /// Set when the server shuts down: this process matches no more.
    private let stopped = Mutex(false)
    private let logger = Logger(label: "stratus.notifications")

    /// A notifier following the store. Its first work, queued now and done once it runs as a service, loads every
    /// subscription, then matches what waits in the outbox; the store's events are queued behind it and applied
    /// in order, so none is lost to the load.
    package init(store: any Store, pushSender: APNsSender?, metrics: ServerMetrics, telemetry: TelemetryRecorder) {
        self.telemetry = telemetry
        self.store = store
        self.pushSender = pushSender
        self.metrics = metrics
        lease = Lease(name: "subscription-matching", holder: Lease.holder(onNode: metrics.node), duration: 10_000)
        (queue, work) = AsyncStream<Work>.makeStream()
        enqueue(.reloadAll)
        enqueue(.match)
        store.observeEvents { [weak self] delivery in self?.handle(delivery) }
    }

    deinit {
        work.finish()
    }

    /// As a service of the application: does the queued work in order, and looks at the outbox every
    /// ``idleCheck`` in case no process is emptying it, until the server stops; then gives the matching lease up,
    /// so that a restarted or another process takes the outbox over at once instead of when the lease expires.
    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await item in self.queue {
                        await self.perform(item)
                    }
                }
                group.addTask {
                    while (try? await Task.sleep(for: Self.idleCheck)) != nil {
                        self.enqueue(.match)
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
        stopped.withLock { $0 = true }
        try? await lease.release(in: store)
    }

    // MARK: - Following the store

    private func handle(_ delivery: StoreEventDelivery) {
        guard case .committed(let events) = delivery else {
            enqueue(.reloadAll)
            enqueue(.match)
            waiters.wakeAll()
            return
        }
        for event in events {
            switch event {
            case .subscriptionSaved(let database, let owner, let id):
                enqueue(.reload(SubscriptionIndex.EntryKey(database: database, owner: owner, id: id)))
            case .subscriptionDeleted(let database, let owner, let id):
                enqueue(.remove(SubscriptionIndex.EntryKey(database: database, owner: owner, id: id)))
            case .rolesChanged(let containerID, let environment, let user):
                enqueue(.reloadRoles(containerID: containerID, environment: environment, user: user))
            case .recordEventsPending:
                enqueue(.match)
            case .notificationsAdded(let containerID, let environment, let recipients, _):
                waiters.wake(containerID: containerID, environment: environment, users: recipients)
            default:
                break
            }
        }
    }

    private func enqueue(_ item: Work) {
        if case .match = item {
            guard matchQueued.withLock({ queued in defer { queued = true }; return !queued }) else { return }
        }
        work.yield(item)
    }

    private func perform(_ item: Work) async {
        do {
            switch item {
            case .reload(let key):
                let stored = try await store.subscription(id: key.id, owner: key.owner, in: key.database)
                var roles: Set<String> = []
                if let stored { roles = try await Self.roles(of: stored, store: store) }
                index.withLock { index in
                    if let stored { index.insert(stored, roles: roles) } else { index.remove(key) }
                }
            case .remove(let key):
                index.withLock { $0.remove(key) }
            case .reloadRoles(let containerID, let environment, let user):
                let owned = index.withLock { index in
                    index.entries.values.map(\.stored).filter {
                        $0.owner == user && $0.database == .publicDatabase(containerID, environment)
                    }
                }
                guard !owned.isEmpty else { return }
                let roles = try await store.roles(containerID: containerID, environment: environment, userRecordName: user)
                index.withLock { index in
                    for stored in owned { index.insert(stored, roles: roles) }
                }
            case .reloadAll:
                try await reloadAll()
            case .match:
                matchQueued.withLock { $0 = false }
                try await matchPending()
            }
        } catch {
            logger.warning("subscription upkeep failed", metadata: ["stratus.error": "\(String(reflecting: error))"])
        }
    }

    /// Loads every saved subscription, with its owner's roles.
    private func reloadAll() async throws {
        var fresh = SubscriptionIndex()
        for stored in try await store.allSubscriptions() {
            fresh.insert(stored, roles: try await Self.roles(of: stored, store: store))
        }
        index.withLock { $0 = fresh }
    }

    package static func roles(of stored: StoredSubscription, store: any Store) async throws -> Set<String> {
        guard stored.database.scope == .public else { return [] }
        return try await store.roles(containerID: stored.database.containerID, environment: stored.database.environment, userRecordName: stored.owner)
    }

    // MARK: - Matching

    /// Empties the outbox, a batch at a time, while this process holds the lease.
    private func matchPending() async throws {
        while !stopped.withLock({ $0 }) {
            let pending = try await store.pendingRecordEvents(limit: Self.batchSize)
            guard let last = pending.last, try await lease.hold(in: store) else { return }
            var schemas: [String: Schema] = [:]
            for event in pending {
                let database = event.event.zone.database
                let key = database.containerID + "|" + database.environment.rawValue
                if schemas[key] == nil {
                    schemas[key] = try await store.schema(containerID: database.containerID, environment: database.environment)
                }
            }
            var outcome = index.withLock { index in
                SubscriptionMatcher(index: index).outcome(of: pending.map(\.event)) { zone in
                    schemas[zone.database.containerID + "|" + zone.database.environment.rawValue] ?? .initial
                }
            }
            // Webhook deliveries are queued in the same transaction that takes the changes out of the outbox.
            outcome.webhookDeliveries = WebhookEvents.deliveries(
                for: pending.map(\.event), endpoints: try await store.enabledWebhookEndpoints(), now: ServerClock.now()
            )
            guard let stored = try await store.completeRecordEvents(through: last.id, count: pending.count, outcome: outcome) else { continue }
            metrics.notificationsQueued(stored.count)
            let now = ServerClock.now()
            for (key, made) in Dictionary(grouping: stored, by: { [$0.notification.containerID, $0.notification.environment.rawValue] }) {
                telemetry.notificationsMade(made.count, containerID: key[0], environment: made[0].notification.environment, time: now)
            }
            // Removed here at once as well as by the store's event, so the next batch cannot fire them again.
            index.withLock { index in
                for fired in outcome.firedOnce { index.remove(.init(database: fired.database, owner: fired.owner, id: fired.id)) }
            }
            if let pushSender, !stored.isEmpty {
                Task { await pushSender.deliver(stored) }
            }
            if pending.count < Self.batchSize { return }
        }
    }
}
