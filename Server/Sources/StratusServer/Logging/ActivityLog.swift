import Foundation
import StratusStore
import Synchronization

/// The recent requests this server node answered, and per-minute counters for the last hour: what the
/// console's activity page shows (`GET /admin/1/activity`).
///
/// Held in memory: each node reports its own traffic, and a restart starts afresh.
final class ActivityLog: Sendable {
    /// One answered request. The path never includes the query, which may carry tokens.
    struct Entry: Sendable {
        var sequence: Int
        /// Milliseconds since 1970.
        var time: Int64
        var method: String
        var path: String
        var status: Int
        var microseconds: Int64
    }

    /// The requests, errors and latencies of one minute.
    struct Minute: Sendable {
        var minute: Int64
        var requests = 0
        var errors = 0
        var latencies = LatencyHistogram()
    }

    /// Totals over a span of time.
    struct Summary: Sendable {
        var requests: Int
        var errors: Int
        var p50Microseconds: Int64?
        var p99Microseconds: Int64?
    }

    private struct State {
        var nextSequence = 1
        var recent: [Entry] = []
        var minutes: [Minute] = []
    }

    let capacity: Int
    private let state = Mutex(State())

    init(capacity: Int = 200) {
        self.capacity = capacity
    }

    func record(method: String, path: String, status: Int, microseconds: Int64, now: Date = Date()) {
        let time = Int64(now.timeIntervalSince1970 * 1000)
        let minute = time / 60_000
        state.withLock { state in
            state.recent.append(Entry(
                sequence: state.nextSequence, time: time, method: method, path: path, status: status, microseconds: microseconds
            ))
            state.nextSequence += 1
            if state.recent.count > capacity * 2 { state.recent.removeFirst(state.recent.count - capacity) }
            if state.minutes.last?.minute != minute {
                state.minutes.append(Minute(minute: minute))
                state.minutes.removeAll { $0.minute <= minute - 60 }
            }
            state.minutes[state.minutes.count - 1].requests += 1
            if status >= 400 { state.minutes[state.minutes.count - 1].errors += 1 }
            state.minutes[state.minutes.count - 1].latencies.add(microseconds: microseconds)
        }
    }

    /// Up to `limit` of the latest requests after `sequence`, oldest first.
    func recent(after sequence: Int = 0, limit: Int = 100) -> [Entry] {
        state.withLock { state in
            Array(state.recent.filter { $0.sequence > sequence }.suffix(min(limit, capacity)))
        }
    }

    /// The counters of the last hour, and each of its minutes (oldest first).
    func lastHour(now: Date = Date()) -> (summary: Summary, minutes: [Minute]) {
        let current = Int64(now.timeIntervalSince1970 * 1000) / 60_000
        let minutes = state.withLock { state in state.minutes.filter { $0.minute > current - 60 } }
        var latencies = LatencyHistogram()
        for minute in minutes { latencies.merge(minute.latencies) }
        let summary = Summary(
            requests: minutes.reduce(0) { $0 + $1.requests }, errors: minutes.reduce(0) { $0 + $1.errors },
            p50Microseconds: latencies.quantile(0.5), p99Microseconds: latencies.quantile(0.99)
        )
        return (summary, minutes)
    }
}

