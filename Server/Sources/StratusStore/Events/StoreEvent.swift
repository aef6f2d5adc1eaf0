import Foundation
import StratusModel

/// Something a store committed that caches and waiters elsewhere must learn about.
///
/// A store writes its events in the transaction of the change they describe and delivers them, in commit
/// order, to every observer of every process or node that shares its data (see ``EventStore``). Caches
/// forget what an event makes stale; waiters wake.
public enum StoreEvent: Sendable, Hashable, Codable {
    /// A container's schemas changed (both environments change in one step).
    case schemaChanged(containerID: String)
    /// A user's custom roles changed.
    case rolesChanged(containerID: String, environment: Environment, userRecordName: String)
    /// A container's settings (its API token) changed.
    case containerChanged(containerID: String)
    /// A server-to-server key was revoked.
    case serverKeyRevoked(keyID: String)
    /// A session ended: its web auth tokens no longer sign anyone in.
    case sessionEnded(sessionID: String)
    /// A subscription was created or replaced.
    case subscriptionSaved(database: DatabaseRef, owner: String, id: String)
    /// A subscription was deleted, by its owner or because it fired once.
    case subscriptionDeleted(database: DatabaseRef, owner: String, id: String)
    /// Record changes wait in the outbox for subscription matching (``NotificationStore/pendingRecordEvents(limit:)``).
    case recordEventsPending
    /// Notifications were stored for these users; the newest has id `latestID`.
    case notificationsAdded(containerID: String, environment: Environment, recipients: [String], latestID: Int64)
    /// Index builds of a container environment started or finished.
    case indexBuildsChanged(containerID: String, environment: Environment)
    /// Mail was queued: the sending process looks at the queue.
    case mailQueued
    /// Webhook deliveries were queued: the delivering process looks at them.
    case webhooksQueued
    /// A container's functions or their modules changed.
    case functionsChanged(containerID: String)
    /// A container's scheduled jobs changed.
    case jobsChanged(containerID: String)
    /// The defaults' or a container's quotas changed.
    case quotasChanged
    /// Every database's storage was measured again, by a snapshot begun at `measuredAt` (milliseconds; `nil` when
    /// written by a version that did not say).
    case usageMeasured(measuredAt: Int64?)
    /// The server's admin key was rotated or turned off (``AdminKeyState``).
    case adminKeyChanged

    /// The event as stored: compact JSON.
    public var encoded: String {
        // Encoding an enum of strings and numbers cannot fail.
        String(decoding: (try? JSONEncoder().encode(self)) ?? Data(), as: UTF8.self)
    }

    /// An event stored by ``encoded``; `nil` for text a newer version wrote that this one does not know.
    public init?(encoded: String) {
        guard let event = try? JSONDecoder().decode(StoreEvent.self, from: Data(encoded.utf8)) else { return nil }
        self = event
    }
}

/// What an observer of a store's events is given.
public enum StoreEventDelivery: Sendable, Hashable {
    /// Events committed since the previous delivery, oldest first.
    case committed([StoreEvent])
    /// Some events could not be delivered (the observer fell behind the store's event log): everything
    /// cached may be stale and must be read again.
    case missed
}

extension StoreEventDelivery {
    /// Whether a store's cached schemas may be stale after this delivery.
    public var invalidatesSchemas: Bool {
        switch self {
        case .missed: true
        case .committed(let events): events.contains { if case .schemaChanged = $0 { true } else { false } }
        }
    }

    /// Whether a store's list of running index builds may be stale after this delivery.
    public var invalidatesIndexBuilds: Bool {
        switch self {
        case .missed: true
        case .committed(let events): events.contains { if case .indexBuildsChanged = $0 { true } else { false } }
        }
    }
}

/// The store's events and the coordination of the processes or nodes that share it.
public protocol EventStore: Sendable {
    /// Calls `observer` with every delivery from now on, in commit order, one delivery at a time. The observer
    /// runs on the store's delivery path: it must be quick and must not block (forget a cache entry, wake a
    /// waiter, signal a task).
    func observeEvents(_ observer: @escaping @Sendable (StoreEventDelivery) -> Void)
    /// Delivers every event committed before the call, whoever committed it, before returning.
    ///
    /// Cheap when nothing new was committed. Security checks call it before they trust a cache, so that a
    /// revoked key or an ended session is refused at once on every process.
    func catchUpEvents() async throws
    /// Takes, or renews, the lease `name` for `holder` until `now + duration` (milliseconds).
    ///
    /// A background job that must run once across every process (asset collection, notification expiry,
    /// index builds, subscription matching) runs only while it holds its lease.
    /// - Returns: whether `holder` holds the lease now; `false` while another holder's lease lasts.
    func acquireLease(_ name: String, holder: String, now: Int64, duration: Int64) async throws -> Bool
    /// Gives the lease up, if `holder` holds it, so that another process can take it at once.
    func releaseLease(_ name: String, holder: String) async throws
    /// Reads from the database once, for readiness checks.
    /// - Throws: ``StorageError/Code/unavailable`` when the database cannot be reached.
    func checkAvailable() async throws
    /// Where the data lives, for operators' messages: the SQLite file's path, or the PostgreSQL URL without its password.
    var location: String { get }
    /// Whether the store is a database server that nodes on other machines reach: they share no data folder, so
    /// each must be given what they share (the secrets key) rather than find it beside the data.
    var isReachedOverNetwork: Bool { get }
    /// Closes the store's connections, for commands that open a store without running it as a service. The store
    /// must not be used afterwards.
    func close() async
    /// How this process uses the database now, for monitoring.
    func statistics() -> StoreStatistics
}

/// How one process uses its database, as `/metrics` reports it.
public struct StoreStatistics: Sendable, Hashable {
    /// Database calls holding a connection now.
    public var connectionsInUse: Int
    /// Database calls waiting for a connection now.
    public var connectionsAwaited: Int
    /// The most connections the process opens for calls.
    public var connectionLimit: Int
    /// Milliseconds from the commit of the newest store event this process delivered to its delivery here
    /// (by the two processes' clocks); `nil` before the first.
    public var eventLagMilliseconds: Int64?

    public init(connectionsInUse: Int, connectionsAwaited: Int, connectionLimit: Int, eventLagMilliseconds: Int64?) {
        self.connectionsInUse = connectionsInUse
        self.connectionsAwaited = connectionsAwaited
        self.connectionLimit = connectionLimit
        self.eventLagMilliseconds = eventLagMilliseconds
    }
}
