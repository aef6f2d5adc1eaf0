import Foundation
import Synchronization

/// One process's claim on a background job that must run in one process at a time (see
/// ``EventStore/acquireLease(_:holder:now:duration:)``).
///
/// ``hold(in:now:)`` asks the store only when the lease is not held or is past half its duration, so a job
/// that runs often renews it rarely; after a refusal it waits a tenth of the duration before asking again.
/// A holder that stops renewing (a crashed process) loses the lease when it expires, and another process,
/// or the restarted one, takes over.
///
/// ```swift
/// let lease = Lease(name: "asset-collection")
/// if try await lease.hold(in: store) { try await sweep() }
/// ```
public final class Lease: Sendable {
    public let name: String
    /// This process's name for itself in the lease.
    public let holder: String
    /// Milliseconds.
    public let duration: Int64
    /// Milliseconds since 1970 until which the store granted the lease; 0 when not held.
    private let heldUntil = Mutex<Int64>(0)
    /// Milliseconds since 1970 before which a refused lease is not asked for again.
    private let refusedUntil = Mutex<Int64>(0)

    /// A holder name for a process of the node `node`: the node's name and a random part, so that whoever looks at
    /// the leases table sees which node runs each job, and two processes of one node never share a claim.
    public static func holder(onNode node: String) -> String {
        "\(node)/\(UUID().uuidString.prefix(8).lowercased())"
    }

    public init(name: String, holder: String = UUID().uuidString, duration: Int64 = 30_000) {
        self.name = name
        self.holder = holder
        self.duration = duration
    }

    /// Whether this process holds the lease, taking or renewing it as needed.
    public func hold(in store: any EventStore, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) async throws -> Bool {
        if now < heldUntil.withLock({ $0 }) - duration / 2 { return true }
        if now < refusedUntil.withLock({ $0 }) { return false }
        let held = try await store.acquireLease(name, holder: holder, now: now, duration: duration)
        heldUntil.withLock { $0 = held ? now + duration : 0 }
        refusedUntil.withLock { $0 = held ? 0 : now + duration / 10 }
        return held
    }

    /// Gives the lease up, so that another process can take the job at once.
    public func release(in store: any EventStore) async throws {
        guard heldUntil.withLock({ $0 }) > 0 else { return }
        heldUntil.withLock { $0 = 0 }
        try await store.releaseLease(name, holder: holder)
    }
}
