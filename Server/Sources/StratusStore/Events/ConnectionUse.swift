import Synchronization

/// Counts a store's database calls that hold, or wait for, a connection: the numbers of ``StoreStatistics``.
///
/// ```swift
/// try await use.call { connected in
///     try await pool.withConnection { connection in
///         connected()
///         ...
///     }
/// }
/// ```
public final class ConnectionUse: Sendable {
    private let inUse = Atomic<Int>(0)
    private let awaited = Atomic<Int>(0)

    public init() {}

    /// Calls holding a connection, and calls waiting for one.
    public var counts: (inUse: Int, awaited: Int) {
        (inUse.load(ordering: .relaxed), awaited.load(ordering: .relaxed))
    }

    /// Runs `body`, counted as waiting until it calls `connected` and as holding a connection from then on.
    public func call<T>(_ body: (_ connected: @escaping @Sendable () -> Void) async throws -> T) async throws -> T {
        let call = Call(use: self)
        awaited.add(1, ordering: .relaxed)
        defer { call.end() }
        return try await body { call.connect() }
    }

    /// Runs `body`, counted as holding a connection throughout (a call that never waits for one).
    public func holding<T>(_ body: () throws -> T) rethrows -> T {
        inUse.add(1, ordering: .relaxed)
        defer { inUse.subtract(1, ordering: .relaxed) }
        return try body()
    }

    /// One call's state: waiting (0), connected (1), ended (2).
    private final class Call: Sendable {
        let use: ConnectionUse
        let state = Atomic<Int>(0)

        init(use: ConnectionUse) {
            self.use = use
        }

        func connect() {
            guard state.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged else { return }
            use.awaited.subtract(1, ordering: .relaxed)
            use.inUse.add(1, ordering: .relaxed)
        }

        func end() {
            switch state.exchange(2, ordering: .relaxed) {
            case 0: use.awaited.subtract(1, ordering: .relaxed)
            case 1: use.inUse.subtract(1, ordering: .relaxed)
            default: break
            }
        }
    }
}
