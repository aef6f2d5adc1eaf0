@testable import StratusServer
import StratusServices
import Logging
import StratusStore
import StratusTestSupport
import Synchronization
import Testing

/// The request rates' sliding minute on an explicit clock, on a store of the backend under test.
@Suite struct RequestRatesTests {
    @Test("requests counted just before a minute ends, and not yet synced to the store, still weigh on the next minute")
    func unsyncedCountsCrossTheMinute() async throws {
        let folder = try TestFolder("stratus-rates")
        defer { folder.remove() }
        let store = try await StoreFactory.current.makeStore(folder.path)
        let clock = Mutex<Int64>(1_700_000_040_000 + 59_000)   // one second before a minute ends
        let rates = RequestRates(store: store, syncInterval: .seconds(3_600), logger: Logger(label: "test")) { clock.withLock { $0 } }
        var seen: [Int?] = []
        for _ in 0..<3 { seen.append(try await rates.admit("address|198.51.100.20", limit: 5)) }
        clock.withLock { $0 += 1_500 }   // half a second into the next minute, nothing synced
        for _ in 0..<3 { seen.append(try await rates.admit("address|198.51.100.20", limit: 5)) }
        await StoreFactory.current.releaseStore(store, folder.path)
        #expect(seen.prefix(5).allSatisfy { $0 == nil }, "\(seen)")
        #expect(seen[5] != nil, "the sixth request in a sliding minute of five was let through: \(seen)")
    }

    @Test("a client refused with retryAfter that waits exactly that long is served, whatever the minute's share and the earlier minute's count", arguments: [
        (offset: 6_000 as Int64, before: 0 as Int, limit: 20 as Int64),
        (offset: 30_000, before: 0, limit: 20),
        (offset: 57_000, before: 0, limit: 20),
        (offset: 15_000, before: 12, limit: 20),
        (offset: 45_000, before: 20, limit: 20),
        (offset: 1_000, before: 19, limit: 20),
        (offset: 30_000, before: 3, limit: 5),
    ])
    func waitingRetryAfterIsServed(_ start: (offset: Int64, before: Int, limit: Int64)) async throws {
        let folder = try TestFolder("stratus-rates")
        defer { folder.remove() }
        let store = try await StoreFactory.current.makeStore(folder.path)
        let minute: Int64 = 1_700_000_040_000
        let clock = Mutex<Int64>(minute - 60_000 + 30_000)
        let rates = RequestRates(store: store, syncInterval: .seconds(3_600), logger: Logger(label: "test")) { clock.withLock { $0 } }
        let key = "user|_retry"
        // `before` requests in the middle of the previous minute, then as many as fit from `offset` into this one.
        for _ in 0..<start.before { _ = try await rates.admit(key, limit: start.limit) }
        clock.withLock { $0 = minute + start.offset }
        var admitted = 0
        var refusal: Int?
        while refusal == nil, admitted < 100 {
            refusal = try await rates.admit(key, limit: start.limit)
            if refusal == nil { admitted += 1 }
        }
        var waits: [Int] = []
        // Three rounds: wait what the refusal says, then one more request is served and the next refused.
        for _ in 0..<3 {
            let wait = try #require(refusal, "never refused after \(admitted) requests")
            waits.append(wait)
            clock.withLock { $0 += Int64(wait - 1) * 1_000 }
            let early = try await rates.admit(key, limit: start.limit)
            #expect(early != nil, "a request a second before retryAfter (\(wait) s) was served: the wait is longer than needed, waits \(waits)")
            clock.withLock { $0 += 1_000 }
            let served = try await rates.admit(key, limit: start.limit)
            #expect(served == nil, "waiting retryAfter (\(wait) s) was refused again with \(served ?? 0) s; waits \(waits)")
            refusal = try await rates.admit(key, limit: start.limit)
        }
        await StoreFactory.current.releaseStore(store, folder.path)
    }
}
