import Logging
import ServiceLifecycle
import StratusStore
import Synchronization

/// Counts requests per key (a user, a server-to-server key, an address) and refuses those over a rate, counted
/// across every node sharing the store.
///
/// Each node counts in memory and, every ``ServerConfiguration/requestCountSyncInterval``, adds its counts to the
/// store's and reads back the totals of every key it saw this minute. The first request of a key a node has not
/// seen this minute reads the key's totals before it is answered. So a rate holds across nodes up to what other
/// nodes accepted within one sync interval.
///
/// A rate is a sliding minute: the current minute's count plus the previous minute's, weighted by how much of it
/// the sliding minute still covers. Refused requests are not counted.
package final class RequestRates: Service, Sendable {
    private struct Tally: Sendable {
        /// Whole minutes since 1970.
        package var window: Int64
        /// Every node's count for `window`, as last read from the store (this node's sent counts included).
        package var stored: Int64
        /// This node's count for `window` not yet sent to the store.
        package var unsent: Int64
        /// Every node's count for the minute before `window`.
        package var previous: Int64
    }

    private let store: any Store
    private let syncInterval: Duration
    private let logger: Logger
    private let tallies = Mutex<[String: Tally]>([:])
    /// Counts of minutes that ended before they were sent.
    private let leftovers = Mutex<[RequestCount]>([])
    /// The clock, in milliseconds since 1970 (tests move it).
    private let now: @Sendable () -> Int64

    package init(store: any Store, syncInterval: Duration, logger: Logger, now: @escaping @Sendable () -> Int64 = ServerClock.now) {
        self.store = store
        self.syncInterval = syncInterval
        self.logger = logger
        self.now = now
    }

    /// Counts a request under `key`, or refuses it when the key is at `limit` requests per minute.
    /// - Returns: the seconds to wait before trying again when refused, else `nil`.
    package func admit(_ key: String, limit: Int64) async throws -> Int? {
        let time = now()
        let window = time / 60_000
        if tallies.withLock({ $0[key]?.window != window }) {
            try await load(key, window: window)
        }
        return tallies.withLock { tallies -> Int? in
            var tally = tallies[key] ?? Tally(window: window, stored: 0, unsent: 0, previous: 0)
            Self.roll(&tally, key: key, to: window, leftovers: leftovers)
            let current = tally.stored + tally.unsent
            if Self.estimate(previous: tally.previous, current: current, millisecond: time % 60_000) + 1 > Double(limit) {
                tallies[key] = tally
                return Self.wait(previous: tally.previous, current: current, limit: limit, time: time)
            }
            tally.unsent += 1
            tallies[key] = tally
            return nil
        }
    }

    /// A key's count over the sliding minute that ends `millisecond` into the current minute.
    package static func estimate(previous: Int64, current: Int64, millisecond: Int64) -> Double {
        Double(previous) * (1 - Double(millisecond) / 60_000) + Double(current)
    }

    /// The first whole number of seconds after `time` at which one more request fits in the sliding minute (the
    /// previous minute's share, then this one's, weighing less as time goes on), by the estimate ``admit(_:limit:)``
    /// makes: a client that waits them is served, unless others used the room meanwhile.
    package static func wait(previous: Int64, current: Int64, limit: Int64, time: Int64) -> Int {
        func fits(after seconds: Int64) -> Bool {
            let later = time % 60_000 + seconds * 1_000
            let count = later < 60_000
                ? estimate(previous: previous, current: current, millisecond: later)
                : later < 120_000 ? estimate(previous: current, current: 0, millisecond: later - 60_000) : 0
            return count + 1 <= Double(limit)
        }
        var seconds: Int64 = 1
        while !fits(after: seconds) && seconds < 120 { seconds += 1 }
        return Int(seconds)
    }

    /// Moves a tally into `window`: the minute it held becomes the previous one when adjacent; its unsent count is
    /// kept to be sent.
    private static func roll(_ tally: inout Tally, key: String, to window: Int64, leftovers: borrowing Mutex<[RequestCount]>) {
        guard tally.window != window else { return }
        if tally.unsent > 0 {
            let ended = RequestCount(key: key, window: tally.window, count: tally.unsent)
            leftovers.withLock { $0.append(ended) }
        }
        tally.previous = tally.window == window - 1 ? tally.stored + tally.unsent : 0
        tally.window = window
        tally.stored = 0
        tally.unsent = 0
    }

    /// Reads a key's totals for `window` and the minute before from the store.
    private func load(_ key: String, window: Int64) async throws {
        let counts = try await store.requestCounts(keys: [key], windows: [window - 1, window])
        let previous = counts.first { $0.window == window - 1 }?.count ?? 0
        let stored = counts.first { $0.window == window }?.count ?? 0
        tallies.withLock { tallies in
            if var tally = tallies[key] {
                if tally.window != window {
                    if tally.unsent > 0 {
                        leftovers.withLock { $0.append(RequestCount(key: key, window: tally.window, count: tally.unsent)) }
                    }
                    // This node's count of the minute that just ended may not be in the store yet.
                    let ownPrevious = tally.window == window - 1 ? tally.stored + tally.unsent : 0
                    tally = Tally(window: window, stored: stored, unsent: 0, previous: max(previous, ownPrevious))
                } else {
                    tally.stored = max(tally.stored, stored)
                    tally.previous = max(tally.previous, previous)
                }
                tallies[key] = tally
            } else {
                tallies[key] = Tally(window: window, stored: stored, unsent: 0, previous: previous)
            }
        }
    }

    /// Sends this node's counts and reads back every node's, for each key seen this minute or the one before.
    package func sync() async throws {
        let window = now() / 60_000
        var sent: [RequestCount] = leftovers.withLock { taken in
            defer { taken.removeAll() }
            return taken
        }
        tallies.withLock { tallies in
            for (key, tally) in tallies {
                if tally.window < window - 1 {
                    if tally.unsent > 0 { sent.append(RequestCount(key: key, window: tally.window, count: tally.unsent)) }
                    tallies[key] = nil
                } else if tally.window == window || tally.unsent > 0 {
                    sent.append(RequestCount(key: key, window: tally.window, count: tally.unsent))
                    tallies[key]?.unsent = 0
                    tallies[key]?.stored += tally.unsent
                }
            }
        }
        guard !sent.isEmpty else { return }
        var totals: [RequestCount] = []
        do {
            for start in stride(from: 0, to: sent.count, by: 500) {
                totals += try await store.addRequestCounts(Array(sent[start..<min(start + 500, sent.count)]))
            }
        } catch {
            // Counted again at the next sync, so that no request goes uncounted while the store is away.
            leftovers.withLock { $0 += sent.filter { $0.count > 0 } }
            throw error
        }
        tallies.withLock { tallies in
            for total in totals {
                guard var tally = tallies[total.key], tally.window == total.window else { continue }
                tally.stored = max(tally.stored, total.count)
                tallies[total.key] = tally
            }
        }
    }

    package func run() async throws {
        await cancelWhenGracefulShutdown {
            var sweptWindow: Int64 = 0
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: self.syncInterval)
                } catch {
                    return
                }
                do {
                    try await self.sync()
                    let window = self.now() / 60_000
                    if window != sweptWindow {
                        try await self.store.sweepRequestCounts(before: window - 2)
                        sweptWindow = window
                    }
                } catch {
                    self.logger.warning("request counts could not be shared", metadata: ["stratus.error": "\(String(reflecting: error))"])
                }
            }
        }
        try? await sync()
    }
}
