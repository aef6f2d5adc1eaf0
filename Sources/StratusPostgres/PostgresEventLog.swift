import Foundation
import Logging
import PostgresNIO
import StratusStore
import Synchronization

/// Delivers the store events of `store_events` to this node's observers, whichever node wrote them: each
/// committed event once, as soon as it is visible.
///
/// Positions (see ``ChangePosition``) are settled below a bound that a long-running writer anywhere in the
/// cluster holds back; events are not made to wait for it. The log keeps the settled position it has read up
/// to, and above it the positions it has delivered already, so an event that commits late with a lower
/// position than one delivered is still delivered, and none twice. Events of one transaction come in order;
/// events of transactions committing at the same moment may come in either order, which caches and waiters
/// do not mind.
///
/// ``catchUp()`` is one indexed statement, cheap when nothing is new, so security checks call it before they
/// trust a cache. A listening connection (`LISTEN stratus_events`) runs it as soon as any node commits
/// events; a slow poll covers a lost notification.
final class PostgresEventLog: Sendable {
    /// Events read per statement.
    static let pageSize = 500

    private struct State {
        /// Every event at or below this position was delivered (or pruned before it could be).
        var settledThrough: Int64
        /// Positions above ``settledThrough`` delivered already.
        var deliveredAbove: Set<Int64> = []
        var observers: [@Sendable (StoreEventDelivery) -> Void] = []
        /// Reads begun so far, numbered from 1; a caller needs one that begins after it came.
        var readsStarted: UInt64 = 0
        /// The number of the last read that ended.
        var readsEnded: UInt64 = 0
    }

    private let client: PostgresClient
    private let logger: Logger
    private let positionOffset: Int64
    /// How long a read waits for a connection before it fails as unavailable.
    private let connectionWait: Duration
    /// How often the log is read without a notification.
    private let pollInterval: Duration
    private let state: Mutex<State>
    /// Serializes readers: a second caller waits for the first one's read, then reads again.
    private let reading = AsyncMutex()

    /// Starts after every event settled now; events committed earlier are not delivered.
    init(client: PostgresClient, logger: Logger, positionOffset: Int64, connectionWait: Duration, pollInterval: Duration) async throws {
        self.pollInterval = pollInterval
        self.client = client
        self.logger = logger
        self.positionOffset = positionOffset
        self.connectionWait = connectionWait
        let (bound, visible) = try await Self.withConnection(client, wait: connectionWait) { connection in
            let bound = try await connection.all(
                PostgresQuery(unsafeSQL: "SELECT \(ChangePosition.settledBoundSQL(offset: positionOffset))"), as: Int64.self, logger: logger
            ).first ?? 0
            let visible = try await connection.all("SELECT position FROM store_events WHERE position >= \(bound)", as: Int64.self, logger: logger)
            return (bound, visible)
        }
        state = Mutex(State(settledThrough: bound - 1, deliveredAbove: Set(visible)))
    }

    func observe(_ observer: @escaping @Sendable (StoreEventDelivery) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Reads and delivers every event committed before the call.
    ///
    /// Every request calls this, so callers share reads: a caller waits for a read that began after it came,
    /// and while one read runs, everyone who comes meanwhile is served by the next one. One read serves a
    /// crowd, and no caller misses an event committed before it called.
    func catchUp() async throws {
        let needed = state.withLock { $0.readsStarted + 1 }
        try await reading.run {
            let number: UInt64? = state.withLock { state in
                guard state.readsEnded < needed else { return nil }
                state.readsStarted += 1
                return state.readsStarted
            }
            guard let number else { return }
            try await readAndDeliver()
            state.withLock { $0.readsEnded = number }
        }
    }

    /// Reads every page of events after the settled position, and delivers what is new.
    private func readAndDeliver() async throws {
        while true {
            let from = state.withLock { $0.settledThrough }
            let page = try await readPage(after: from)
            let full = page.events.count == Self.pageSize
            state.withLock { state in
                var deliveries: [StoreEventDelivery] = []
                if page.prunedThrough > state.settledThrough { deliveries.append(.missed) }
                let fresh = page.events.filter { !state.deliveredAbove.contains($0.position) }
                if !fresh.isEmpty { deliveries.append(.committed(fresh.compactMap { StoreEvent(encoded: $0.body) })) }
                state.deliveredAbove.formUnion(fresh.map(\.position))
                // Settled up to the bound, or up to the page's end when the page did not reach it.
                var settled = max(state.settledThrough, page.prunedThrough, page.bound - 1)
                if full, let last = page.events.last?.position { settled = min(settled, last) }
                state.settledThrough = max(state.settledThrough, settled)
                state.deliveredAbove = state.deliveredAbove.filter { $0 > state.settledThrough }
                for delivery in deliveries {
                    for observer in state.observers { observer(delivery) }
                }
            }
            if !full { break }
        }
    }

    private struct Page {
        var bound: Int64
        var prunedThrough: Int64
        var events: [(position: Int64, body: String)]
    }

    /// The settled bound, the newest pruned position, and the visible events after `position`.
    private func readPage(after position: Int64) async throws -> Page {
        let bindings = try binds(position, positionOffset)
        let logger = logger
        return try await Self.withConnection(client, wait: connectionWait) { connection in
            var page = Page(bound: 0, prunedThrough: 0, events: [])
            for (bound, pruned, position, body) in try await connection.rows(
                ReadEvents.self, bindings, as: (Int64, Int64, Int64?, String?).self, logger: logger
            ) {
                page.bound = bound
                page.prunedThrough = pruned
                if let position, let body { page.events.append((position, body)) }
            }
            return page
        }
    }

    /// Listens for other nodes' commits and polls, until the task is cancelled.
    func run() async {
        var failing = false
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: "stratus_events") { notifications in
                        try await self.catchUp()
                        failing = false
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                for try await _ in notifications { try await self.catchUp() }
                            }
                            group.addTask {
                                while !Task.isCancelled {
                                    try await Task.sleep(for: self.pollInterval)
                                    try await self.catchUp()
                                }
                            }
                            try await group.next()
                            group.cancelAll()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                if !failing { logger.warning("reading store events failed; retrying", metadata: ["stratus.error": "\(String(reflecting: error))"]) }
                failing = true
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }
}

extension PostgresEventLog {
    /// A connection of the pool within `wait`, or ``StorageError/Code/unavailable``.
    fileprivate static func withConnection<T: Sendable>(
        _ client: PostgresClient, wait: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await PostgresStore.withConnectionDeadline(wait) { started in
            try await client.withConnection { connection in
                started()
                return try await body(connection)
            }
        }
    }
}

/// A lock for async code: callers run one at a time, in arrival order.
final class AsyncMutex: Sendable {
    private struct State {
        var locked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func run<T>(_ body: () async throws -> T) async rethrows -> T {
        await acquire()
        defer { release() }
        return try await body()
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let acquired = state.withLock { state in
                if state.locked {
                    state.waiters.append(continuation)
                    return false
                }
                state.locked = true
                return true
            }
            if acquired { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.locked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}

/// The settled bound, the newest pruned position, and a page of the events after `$1`; `$2` is the position
/// offset.
private enum ReadEvents: PreparedText {
    static let name = "read_events"
    static let sql = """
        SELECT (SELECT stratus_settled_bound($2)),
            COALESCE((SELECT convert_from(value, 'UTF8')::bigint FROM meta WHERE key = 'events_pruned_through'), 0),
            e.position, e.body
        FROM (SELECT 1) AS one
        LEFT JOIN LATERAL (
            SELECT position, body FROM store_events WHERE position > $1 ORDER BY position LIMIT \(PostgresEventLog.pageSize)
        ) AS e ON true
        """
}
