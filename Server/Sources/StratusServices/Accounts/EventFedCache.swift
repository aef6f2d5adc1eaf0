import Synchronization

/// Values read from the store, kept until a store event makes them stale (or, as a safety net, until they
/// are older than the time to live).
///
/// A load that raced with a forget is not kept: every forget bumps a generation, and a loaded value is stored
/// only if the generation did not move while it was read. Otherwise a key revoked while it was being read
/// could stay cached after its revocation was delivered.
package final class EventFedCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        package var entries: [Key: (value: Value, readAt: ContinuousClock.Instant)] = [:]
        package var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let timeToLive: Duration
    private let capacity: Int

    package init(timeToLive: Duration = .seconds(60), capacity: Int = 100_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    /// The cached value, or the loaded one; `nil` values are not cached.
    package func value(for key: Key, load: () async throws -> Value?) async throws -> Value? {
        let now = ContinuousClock.now
        let (cached, generation) = state.withLock { state in (state.entries[key], state.generation) }
        if let cached, now - cached.readAt < timeToLive { return cached.value }
        guard let value = try await load() else { return nil }
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = (value, now)
        }
        return value
    }

    package func forget(_ key: Key) {
        state.withLock { state in
            state.generation &+= 1
            state.entries[key] = nil
        }
    }

    package func forgetAll() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll()
        }
    }
}
