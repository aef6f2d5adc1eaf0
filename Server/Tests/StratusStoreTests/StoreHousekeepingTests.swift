import StratusStore
import Synchronization
import Testing

/// The store's background chores: run on their turns, only with their lease, only when due, and again after a
/// failure.
@Suite struct StoreHousekeepingTests {
    /// Leases granted to one holder only; nothing else of an event store is used.
    final class LeaseTable: EventStore {
        let grantedTo: String
        /// The leases given back, by name.
        let released = Mutex<[String]>([])

        init(grantedTo: String) {
            self.grantedTo = grantedTo
        }

        func observeEvents(_ observer: @escaping @Sendable (StoreEventDelivery) -> Void) {}
        func catchUpEvents() async throws {}
        func acquireLease(_ name: String, holder: String, now: Int64, duration: Int64) async throws -> Bool { holder == grantedTo }
        func releaseLease(_ name: String, holder: String) async throws { released.withLock { $0.append(name) } }
        func checkAvailable() async throws {}
        var location: String { "leases in memory" }
        var isReachedOverNetwork: Bool { false }
        func close() async {}
        func statistics() -> StoreStatistics { StoreStatistics(connectionsInUse: 0, connectionsAwaited: 0, connectionLimit: 1, eventLagMilliseconds: nil) }
    }

    struct Failure: Error {}

    @Test("chores run on their turns; one whose lease another process holds, or with nothing to do, does not; a failure is reported and tried again; leases held are given back at the end")
    func chores() async throws {
        let runs = Mutex<[String: Int]>([:])
        let failures = Mutex<[String]>([])
        let count: @Sendable (String) -> Void = { name in runs.withLock { $0[name, default: 0] += 1 } }
        let leases = LeaseTable(grantedTo: "this process")
        let housekeeping = StoreHousekeeping(store: leases, chores: [
            .init("every turn", every: .zero) { count("every turn") },
            .init("with the lease", every: .zero, lease: Lease(name: "mine", holder: "this process")) { count("with the lease") },
            .init("leased elsewhere", every: .zero, lease: Lease(name: "theirs", holder: "another process")) { count("leased elsewhere") },
            .init("nothing to do", every: .zero, when: { false }) { count("nothing to do") },
            .init("rarely", every: .seconds(3600)) { count("rarely") },
            .init("failing", every: .zero) { throw Failure() },
        ]) { chore, _ in failures.withLock { $0.append(chore) } }
        let task = Task { await housekeeping.run() }
        for _ in 0..<200 where runs.withLock({ $0["every turn", default: 0] }) < 3 {
            try await Task.sleep(for: .milliseconds(50))
        }
        task.cancel()
        await task.value
        let seen = runs.withLock { $0 }
        #expect(seen["every turn", default: 0] >= 3)
        #expect(seen["with the lease", default: 0] >= 3)
        #expect(seen["leased elsewhere"] == nil && seen["nothing to do"] == nil && seen["rarely"] == nil)
        #expect(failures.withLock { $0.count } >= 3 && failures.withLock { Set($0) } == ["failing"])
        #expect(leases.released.withLock { $0 } == ["mine"])
    }
}
