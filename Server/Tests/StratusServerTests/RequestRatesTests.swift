@testable import StratusServer
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
}
