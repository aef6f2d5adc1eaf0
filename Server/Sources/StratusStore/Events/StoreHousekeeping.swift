/// The background chores a store does while it runs (index builds, pruning store events, a backend's own upkeep),
/// each when its interval has passed and, for chores that must run in one process at a time, on the one process
/// that holds its ``Lease``.
///
/// ```swift
/// await StoreHousekeeping(store: self, chores: [
///     .init("pruning store events", every: .seconds(60), lease: Lease(name: "store-event-pruning")) { try await self.pruneEvents(now: now) },
/// ]) { chore, error in logger.warning("\(chore) failed") }.run()
/// ```
public struct StoreHousekeeping: Sendable {
    /// One chore.
    public struct Chore: Sendable {
        /// What the chore does, for the log ("pruning store events").
        public var name: String
        public var interval: Duration
        /// Held before the chore runs, for a chore one process at a time does.
        public var lease: Lease?
        /// Whether there is anything to do; asked before the lease, so that an idle chore never writes.
        public var isDue: @Sendable () -> Bool
        public var work: @Sendable () async throws -> Void

        public init(
            _ name: String, every interval: Duration, lease: Lease? = nil, when isDue: @escaping @Sendable () -> Bool = { true },
            _ work: @escaping @Sendable () async throws -> Void
        ) {
            self.name = name
            self.interval = interval
            self.lease = lease
            self.isDue = isDue
            self.work = work
        }
    }

    /// The store whose leases the chores hold.
    public let store: any EventStore
    public let chores: [Chore]
    /// Told of a chore that failed (its name and the error); the chore runs again at its next turn.
    public let failed: @Sendable (String, any Error) -> Void

    public init(store: any EventStore, chores: [Chore], failed: @escaping @Sendable (String, any Error) -> Void) {
        self.store = store
        self.chores = chores
        self.failed = failed
    }

    /// Looks at the chores every quarter second, running each whose interval has passed, until the task is
    /// cancelled. A chore's first turn comes one interval after the start. When cancelled it gives up the leases
    /// it holds, so that another process takes the chores over at once instead of when the leases expire.
    public func run() async {
        await runChores()
        for lease in chores.compactMap(\.lease) {
            try? await lease.release(in: store)
        }
    }

    private func runChores() async {
        var lastRun = chores.map { _ in ContinuousClock.now }
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: .milliseconds(250))
            } catch {
                return
            }
            for (index, chore) in chores.enumerated() where ContinuousClock.now - lastRun[index] >= chore.interval {
                lastRun[index] = .now
                guard chore.isDue() else { continue }
                do {
                    if let lease = chore.lease, try await !lease.hold(in: store) { continue }
                    try await chore.work()
                } catch {
                    failed(chore.name, error)
                }
            }
        }
    }
}
