import Foundation
import StratusModel
import Synchronization

/// The clients of this process waiting for a user's notifications (long polls and event streams).
///
/// Store events wake them (``StoreEvent/notificationsAdded(containerID:environment:recipients:latestID:)``),
/// whichever process stored the notifications; a woken waiter reads what is new from the store.
package final class NotificationWaiters: Sendable {
    /// Whose notifications a waiter waits for.
    package struct Key: Hashable, Sendable {
        package var containerID: String
        package var environment: Environment
        package var user: String

        package init(containerID: String, environment: Environment, user: String) {
            self.containerID = containerID
            self.environment = environment
            self.user = user
        }
    }

    private let waiters = Mutex<[Key: [UUID: AsyncStream<Void>.Continuation]]>([:])

    /// How many long polls and event streams wait on this node now.
    package var count: Int {
        waiters.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }

    /// Yields each time notifications for `key` may have arrived, until the stream is dropped.
    package func listen(_ key: Key) -> AsyncStream<Void> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        waiters.withLock { $0[key, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.waiters.withLock { waiters in
                waiters[key]?[id] = nil
                if waiters[key]?.isEmpty == true { waiters[key] = nil }
            }
        }
        return stream
    }

    /// Wakes the waiters of these users.
    package func wake(containerID: String, environment: Environment, users: [String]) {
        waiters.withLock { waiters in
            for user in users {
                for continuation in waiters[Key(containerID: containerID, environment: environment, user: user)]?.values ?? [:].values {
                    continuation.yield()
                }
            }
        }
    }

    /// Wakes every waiter: some notifications may have been missed.
    package func wakeAll() {
        waiters.withLock { waiters in
            for continuation in waiters.values.flatMap(\.values) { continuation.yield() }
        }
    }
}
