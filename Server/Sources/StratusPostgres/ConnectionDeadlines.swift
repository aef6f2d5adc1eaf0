import StratusStore
import Synchronization

/// Bounds how long operations wait for a pooled connection, with one watchdog task for the whole process
/// rather than a timer per operation (a timer per database call cost a sizeable share of the server's time).
///
/// An operation runs in a task of its own; the watchdog, waking every ``tick`` while any operation waits,
/// gives up those past their deadline that have not got their connection yet: the caller gets
/// ``StorageError/Code/unavailable`` at once, and the task is cancelled, which withdraws its request from the
/// pool. The caller does not wait for that: a pool that has shut down never answers. Once an operation has its
/// connection, it runs to its end.
final class ConnectionDeadlines: Sendable {
    static let shared = ConnectionDeadlines()

    /// How often the watchdog looks, and so how late past its deadline an operation may be given up.
    static let tick = Duration.milliseconds(50)

    private struct Waiter {
        let deadline: ContinuousClock.Instant
        let progress: OperationProgress
        let cancel: @Sendable () -> Void
    }

    private struct State {
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var watching = false
    }

    private let state = Mutex(State())

    /// Runs `operation`, giving up with ``StorageError/Code/unavailable`` when it has not called `started`
    /// (it has its connection) within `wait`. `started` throws when the operation was given up first: the
    /// operation must not use the connection then, since its caller was told it did not run.
    ///
    /// While `reachability` says the database is unreachable, fails at once; a wait that gives up makes it check.
    /// A caller cancelled before the operation has its connection is answered at once, too.
    func run<T: Sendable>(
        wait: Duration, reachability: Reachability?,
        _ operation: @escaping @Sendable (_ started: @escaping @Sendable () throws -> Void) async throws -> T
    ) async throws -> T {
        try await reachability?.refuseWhileUnreachable()
        let progress = OperationProgress()
        let outcome = OperationOutcome<T>()
        let task = Task {
            do {
                outcome.finish(.success(try await operation {
                    // A connection that comes after the caller was told "unavailable" is not used.
                    guard progress.markStarted() else { throw CancellationError() }
                }))
            } catch {
                outcome.finish(.failure(error))
            }
        }
        let unavailable = StorageError(.unavailable, "the database cannot be reached (no connection within \(wait))")
        let id = register(Waiter(deadline: .now + wait, progress: progress, cancel: {
            outcome.finish(.failure(unavailable))
            task.cancel()
            reachability?.suspect()
        }))
        defer { state.withLock { _ = $0.waiters.removeValue(forKey: id) } }
        return try await withTaskCancellationHandler { try await outcome.value } onCancel: {
            // Not waited for: a pool that cannot connect may take its time to withdraw the request.
            if progress.expire() { outcome.finish(.failure(CancellationError())) }
            task.cancel()
        }
    }

    private func register(_ waiter: Waiter) -> UInt64 {
        let (id, startWatching) = state.withLock { state in
            state.nextID += 1
            state.waiters[state.nextID] = waiter
            defer { state.watching = true }
            return (state.nextID, !state.watching)
        }
        if startWatching { Task { await self.watch() } }
        return id
    }

    /// Cancels overdue waiters until none is left to watch.
    private func watch() async {
        while true {
            try? await Task.sleep(for: Self.tick)
            let now = ContinuousClock.now
            let overdue: [Waiter]? = state.withLock { state in
                if state.waiters.isEmpty {
                    state.watching = false
                    return nil
                }
                return state.waiters.values.filter { $0.deadline <= now && !$0.progress.started }
            }
            guard let overdue else { return }
            for waiter in overdue where waiter.progress.expire() { waiter.cancel() }
        }
    }
}

/// Whether an operation has its connection, or was given up first; whichever happens first stands.
private final class OperationProgress: Sendable {
    private static let waiting = 0, running = 1, givenUp = 2
    private let value = Atomic<Int>(OperationProgress.waiting)

    var started: Bool { value.load(ordering: .acquiring) == Self.running }
    var expired: Bool { value.load(ordering: .acquiring) == Self.givenUp }

    /// Marks the operation started unless it was given up first; returns whether it was.
    func markStarted() -> Bool {
        value.compareExchange(expected: Self.waiting, desired: Self.running, ordering: .acquiringAndReleasing).exchanged
    }

    /// Gives the operation up unless it has started; returns whether it was given up.
    func expire() -> Bool {
        value.compareExchange(expected: Self.waiting, desired: Self.givenUp, ordering: .acquiringAndReleasing).exchanged
    }
}

/// The first result an operation gets, from its task or from the watchdog giving it up; later ones are ignored.
private final class OperationOutcome<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<T, any Error>?
    }

    private let state = Mutex(State())

    func finish(_ result: Result<T, any Error>) {
        let waiter: CheckedContinuation<T, any Error>? = state.withLock { state in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    var value: T {
        get async throws {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<T, any Error>? = state.withLock { state in
                    if let result = state.result { return result }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        }
    }
}
