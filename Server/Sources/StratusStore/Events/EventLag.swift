import Foundation
import Synchronization

/// How late a process delivered the newest store event it delivered: ``StoreStatistics/eventLagMilliseconds``.
public final class EventLag: Sendable {
    private let milliseconds = Atomic<Int64>(-1)

    public init() {}

    /// Notes a delivery, now, of an event committed at `committedAt` (milliseconds since 1970).
    public func record(committedAt: Int64, now: Int64 = Int64(Date().timeIntervalSince1970 * 1000)) {
        milliseconds.store(max(0, now - committedAt), ordering: .relaxed)
    }

    /// Milliseconds, or `nil` before the first delivery.
    public var lastMilliseconds: Int64? {
        let value = milliseconds.load(ordering: .relaxed)
        return value < 0 ? nil : value
    }
}
