import Foundation
import StratusStore
import Synchronization

/// The recent requests this server node answered, and per-minute counters for the last hour: what the
/// console's activity page shows (`GET /admin/1/activity`).
///
/// Held in memory: each node reports its own traffic, and a restart starts afresh.
package final class ActivityLog: Sendable {
    /// One answered request. The path never includes the query, which may carry tokens.
    package struct Entry: Sendable {
        package var sequence: Int
        /// Milliseconds since 1970.
        package var time: Int64
        package var method: String
        package var path: String
        package var status: Int
        package var microseconds: Int64
    }

    /// The requests, errors and latencies of one minute.
    package struct Minute: Sendable {
        package var minute: Int64
        package var requests = 0
        package var errors = 0
        package var latencies = LatencyHistogram()
    }

    /// Totals over a span of time.
    package struct Summary: Sendable {
        package var requests: Int
        package var errors: Int
        package var p50Microseconds: Int64?
        package var p99Microseconds: Int64?
    }

    private struct State {
        package var nextSequence = 1
        package var recent: [Entry] = []
        package var minutes: [Minute] = []
    }

    package let capacity: Int
    private let state = Mutex(State())

    package init(capacity: Int = 200) {
        self.capacity = capacity
    }

    package func record(method: String, path: String, status: Int, microseconds: Int64, now: Date = Date()) {
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
    package func recent(after sequence: Int = 0, limit: Int = 100) -> [Entry] {
        state.withLock { state in
            Array(state.recent.filter { $0.sequence > sequence }.suffix(min(limit, capacity)))
        }
    }

    /// The counters of the last hour, and each of its minutes (oldest first).
    package func lastHour(now: Date = Date()) -> (summary: Summary, minutes: [Minute]) {
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

