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
/// trust a cache. It reads every visible event above the settled position; only the reads of the listening
/// connection (`LISTEN stratus_events`, run as soon as any node commits events) and of a slow poll, which
/// covers a lost notification, also compute the settled bound and move the settled position on.
final class PostgresEventLog: Sendable {
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
        /// Whether the next read computes the settled bound (``catchUp(settling:)``).
        var settleRequested = false
    }

    private let client: PostgresClient
    private let logger: Logger
    private let positionOffset: Int64
    /// How long a read waits for a connection before it fails as unavailable.
    private let connectionWait: Duration
    /// How often the log is read without a notification.
    private let pollInterval: Duration
    /// Whether the database can be reached; while it cannot, reads fail at once.
    private let reachability: Reachability
    /// The delay of the newest event delivered.
    let lag = EventLag()
    var lastLagMilliseconds: Int64? { lag.lastMilliseconds }
    private let state: Mutex<State>
    /// Serializes readers: a second caller waits for the first one's read, then reads again.
    private let reading = AsyncMutex()

    /// Starts after every event settled now; events committed earlier are not delivered.
    init(
        client: PostgresClient, logger: Logger, positionOffset: Int64, connectionWait: Duration, pollInterval: Duration,
        reachability: Reachability
    ) async throws {
        self.pollInterval = pollInterval
        self.reachability = reachability
        self.client = client
        self.logger = logger
        self.positionOffset = positionOffset
        self.connectionWait = connectionWait
        let (bound, visible) = try await Self.withConnection(client, wait: connectionWait, reachability: reachability) { connection in
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
    ///
    /// - Parameter settling: also compute the settled bound (an extra look at the running transactions) and
    ///   move the settled position on, so that later reads start higher. The listener and the poll settle;
    ///   requests need not.
    func catchUp(settling: Bool = false) async throws {
        let needed = state.withLock { state in
            if settling { state.settleRequested = true }
            return state.readsStarted + 1
        }
        try await reading.run {
            let read: (number: UInt64, settling: Bool)? = state.withLock { state in
                guard state.readsEnded < needed else { return nil }
                state.readsStarted += 1
                defer { state.settleRequested = false }
                return (state.readsStarted, state.settleRequested)
            }
            guard let read else { return }
            try await readAndDeliver(settling: read.settling)
            state.withLock { $0.readsEnded = read.number }
        }
    }

    /// Reads every page of events after the settled position, and delivers what is new.
    private func readAndDeliver(settling: Bool) async throws {
        var cursor = state.withLock { $0.settledThrough }
        while true {
            let page = try await readPage(after: cursor, settling: settling)
            let full = page.events.count == StorePolicy.eventPageSize
            state.withLock { state in
                var deliveries: [StoreEventDelivery] = []
                if page.prunedThrough > state.settledThrough { deliveries.append(.missed) }
                let fresh = page.events.filter { $0.position > state.settledThrough && !state.deliveredAbove.contains($0.position) }
                if !fresh.isEmpty { deliveries.append(.committed(fresh.compactMap { StoreEvent(encoded: $0.body) })) }
                if let newest = fresh.map(\.createdAt).max() { lag.record(committedAt: newest) }
                state.deliveredAbove.formUnion(fresh.map(\.position))
                // Settled up to the bound, or up to the page's end when the page did not reach it.
                var settled = max(state.settledThrough, page.prunedThrough)
                if let bound = page.bound { settled = max(settled, bound - 1) }
                if full, let last = page.events.last?.position { settled = min(settled, last) }
                state.settledThrough = max(state.settledThrough, settled)
                state.deliveredAbove = state.deliveredAbove.filter { $0 > state.settledThrough }
                for delivery in deliveries {
                    for observer in state.observers { observer(delivery) }
                }
            }
            guard full, let last = page.events.last?.position else { break }
            cursor = max(last, page.prunedThrough)
        }
    }

    private struct Page {
        /// The settled bound, when the read computed it.
        var bound: Int64?
        var prunedThrough: Int64
        var events: [(position: Int64, body: String, createdAt: Int64)]
    }

    /// The newest pruned position, the visible events after `position`, and, when settling, the settled bound.
    private func readPage(after position: Int64, settling: Bool) async throws -> Page {
        let logger = logger
        let offset = positionOffset
        return try await Self.withConnection(client, wait: connectionWait, reachability: reachability) { connection in
            var page = Page(bound: nil, prunedThrough: 0, events: [])
            typealias Row = (Int64?, Int64, Int64?, String?, Int64?)
            let rows = settling
                ? try await connection.rows(ReadEventsSettling.self, try binds(position, offset), as: Row.self, logger: logger)
                : try await connection.rows(ReadEvents.self, try binds(position), as: Row.self, logger: logger)
            for (bound, pruned, position, body, createdAt) in rows {
                page.bound = bound
                page.prunedThrough = pruned
                if let position, let body { page.events.append((position, body, createdAt ?? 0)) }
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
                        try await self.catchUp(settling: true)
                        failing = false
                        try await withThrowingTaskGroup(of: Void.self) { group in
                            group.addTask {
                                for try await _ in notifications { try await self.catchUp(settling: true) }
                            }
                            group.addTask {
                                while !Task.isCancelled {
                                    try await Task.sleep(for: self.pollInterval)
                                    try await self.catchUp(settling: true)
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
        _ client: PostgresClient, wait: Duration, reachability: Reachability,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await PostgresStore.withConnectionDeadline(wait, reachability: reachability) { started in
                try await client.withConnection { connection in
                    try started()
                    return try await body(connection)
                }
            }
        } catch {
            let translated = StorageError.translating(error)
            if translated.suggestsUnreachable { reachability.suspect() }
            throw translated
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

/// The newest pruned position and a page of the events after `$1` (no bound: its first column is NULL).
private enum ReadEvents: PreparedText {
    static let name = "read_events"
    static let sql = """
        SELECT NULL::bigint,
            COALESCE((SELECT convert_from(value, 'UTF8')::bigint FROM meta WHERE key = 'events_pruned_through'), 0),
            e.position, e.body, e.created_at
        FROM (SELECT 1) AS one
        LEFT JOIN LATERAL (
            SELECT position, body, created_at FROM store_events WHERE position > $1 ORDER BY position LIMIT \(StorePolicy.eventPageSize)
        ) AS e ON true
        """
}

/// ``ReadEvents`` with the settled bound first; `$2` is the position offset.
private enum ReadEventsSettling: PreparedText {
    static let name = "read_events_settling"
    static let sql = ReadEvents.sql.replacingOccurrences(of: "SELECT NULL::bigint,", with: "SELECT (SELECT stratus_settled_bound($2)),")
}
