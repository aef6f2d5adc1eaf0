import Logging
import PostgresNIO
import StratusStore
import Synchronization

/// Whether the database can be reached, so that while it is down requests are answered `503` at once instead
/// of each waiting the whole connection wait, and the store finds it again by itself.
///
/// When something suggests the database is down (a connection wait gave up, a connection broke), the store
/// opens one connection of its own, outside the pool. If that fails too, the database is unreachable:
/// operations fail at once with ``StorageError/Code/unavailable``, and the store tries a connection every
/// ``retryInterval`` until one opens. A pool that is only busy never marks the database unreachable, since the
/// store's own connection then opens.
final class Reachability: Sendable {
    /// How often the store tries to connect while the database is unreachable.
    static let retryInterval = Duration.milliseconds(500)

    private enum Phase: Equatable {
        case reachable, checking, unreachable, stopped
    }

    private struct State {
        var phase = Phase.reachable
        /// The first connection tried after a suspicion: calls made meanwhile wait for it.
        var verdict: Task<Bool, Never>?
        var checker: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let canConnect: @Sendable () async -> Bool
    private let logger: Logger

    /// - Parameter canConnect: opens and closes one connection; whether it opened.
    init(logger: Logger, canConnect: @escaping @Sendable () async -> Bool) {
        self.logger = logger
        self.canConnect = canConnect
    }

    /// Tries a connection of `configuration`'s database outside the pool.
    convenience init(configuration: PostgresStore.Configuration, logger: Logger) {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        self.init(logger: logger) { [quiet] in
            guard var connectionConfiguration = try? configuration.connectionConfiguration() else { return false }
            connectionConfiguration.options.connectTimeout = .seconds(2)
            guard let connection = try? await PostgresConnection.connect(configuration: connectionConfiguration, id: 0, logger: quiet) else {
                return false
            }
            try? await connection.close()
            return true
        }
    }

    /// Whether operations are refused now.
    var isUnreachable: Bool { state.withLock { $0.phase == .unreachable } }

    /// Throws ``StorageError/Code/unavailable`` while the database is unreachable; while a check runs, waits
    /// for its verdict (a connection opens in milliseconds, or is refused within a couple of seconds).
    func refuseWhileUnreachable() async throws(StorageError) {
        let (phase, verdict) = state.withLock { ($0.phase, $0.verdict) }
        switch phase {
        case .unreachable:
            break
        case .checking:
            if let verdict, await verdict.value == false { break }
            return
        case .reachable, .stopped:
            return
        }
        throw StorageError(.unavailable, "the database cannot be reached; the server keeps trying and recovers by itself")
    }

    /// Something suggests the database is down: checks with a connection of its own, unless a check runs.
    func suspect() {
        state.withLock { state in
            guard state.phase == .reachable else { return }
            state.phase = .checking
            let verdict = Task { await self.canConnect() }
            state.verdict = verdict
            state.checker = Task { await self.check(verdict) }
        }
    }

    /// Ends the checks; the store is closing.
    func stop() {
        let checker = state.withLock { state in
            state.phase = .stopped
            defer { state.checker = nil }
            return state.checker
        }
        checker?.cancel()
    }

    private func check(_ verdict: Task<Bool, Never>) async {
        if await verdict.value {
            settle(.reachable)
            return
        }
        guard settle(.unreachable) else { return }
        logger.warning("the database cannot be reached: requests are answered 503 with retryAfter until it is back")
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.retryInterval)
            if Task.isCancelled { return }
            if await canConnect() {
                if settle(.reachable) { logger.warning("the database can be reached again") }
                return
            }
        }
    }

    /// Moves to `phase` unless the store stopped; returns whether it moved.
    @discardableResult
    private func settle(_ phase: Phase) -> Bool {
        state.withLock { state in
            guard state.phase != .stopped else { return false }
            state.phase = phase
            state.verdict = nil
            if phase == .reachable { state.checker = nil }
            return true
        }
    }
}

extension StorageError {
    /// Whether the error says the database could not be reached or dropped the connection (rather than refusing
    /// a statement), so that the store checks whether it is down.
    var suggestsUnreachable: Bool {
        guard code == .unavailable, let psql = underlying as? PSQLError else { return false }
        guard let state = psql.serverInfo?[.sqlState] else { return true }
        return ["57P01", "57P02", "57P03", "08000", "08003", "08006"].contains(state)
    }
}
