import Logging
import ServiceLifecycle
import StratusModel
import StratusStore
import Synchronization

/// Counts this node's requests per container environment and minute (requests, errors by code, latency,
/// notifications, the users active each day) and keeps the request log, writing both to the store every
/// ``ServerConfiguration/telemetryFlushInterval``, so that the console charts every node's traffic.
///
/// Each process writes rows of its own (replaced while their minute lasts), so nodes never contend for a row: a row
/// is the node's name and the process's own mark, so that a node restarted within a minute adds to that minute
/// instead of replacing what it counted before.
/// Figures of containers that do not exist (a mistyped or made-up ID in a path) are dropped when written.
package final class TelemetryRecorder: Service, Sendable {
    private struct MinuteKey: Hashable {
        package var containerID: String
        package var environment: Environment
        package var minute: Int64
    }

    private struct DayKey: Hashable {
        package var containerID: String
        package var environment: Environment
        package var day: Int64
    }

    private struct State {
        package var minutes: [MinuteKey: TelemetryMinute] = [:]
        /// Users seen and not yet written.
        package var activeUsers: [DayKey: Set<String>] = [:]
        /// Users already written, per day, so that each is written once a day by this node.
        package var writtenUsers: [DayKey: Set<String>] = [:]
        package var log: [RequestLogEntry] = []
        package var droppedLogEntries = 0
    }

    /// The most log entries held between two writes; more are dropped (and counted in the server's log).
    package static let logBuffer = 50_000
    /// The most container environments counted between two writes (made-up container IDs cannot grow it further).
    package static let keysBetweenWrites = 10_000

    private let store: any Store
    private let configuration: ServerConfiguration
    private let containerExists: @Sendable (String) async -> Bool
    private let logger: Logger
    private let state = Mutex(State())
    /// The name of this process's minute rows: the node's name and a mark of this process.
    private let writer: String

    package init(store: any Store, configuration: ServerConfiguration, logger: Logger, containerExists: @escaping @Sendable (String) async -> Bool) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
        self.containerExists = containerExists
        writer = configuration.nodeName + "#" + Tokens.randomHex(bytes: 4)
    }

    /// Counts an answered request to a container environment, and logs it.
    package func record(
        containerID: String, environment: Environment, time: Int64, method: String, operation: String, status: Int, errorCode: String?,
        notes: RequestNotes.Notes, microseconds: Int64, address: String
    ) {
        let key = MinuteKey(containerID: containerID, environment: environment, minute: time / 60_000)
        let logging = configuration.requestLogDays > 0
        state.withLock { state in
            if state.minutes[key] == nil {
                guard state.minutes.count < Self.keysBetweenWrites else { return }
                state.minutes[key] = TelemetryMinute(containerID: containerID, environment: environment, minute: key.minute, node: writer)
            }
            state.minutes[key]?.requests += 1
            state.minutes[key]?.latency.add(microseconds: microseconds)
            if let errorCode { state.minutes[key]?.errorCodes[errorCode, default: 0] += 1 }
            for (code, count) in notes.refusals { state.minutes[key]?.errorCodes[code, default: 0] += Int64(count) }
            if let user = notes.userRecordName, !user.hasPrefix("_console") {
                let day = DayKey(containerID: containerID, environment: environment, day: time / 86_400_000)
                if state.writtenUsers[day]?.contains(user) != true { state.activeUsers[day, default: []].insert(user) }
            }
            guard logging else { return }
            guard state.log.count < Self.logBuffer else {
                state.droppedLogEntries += 1
                return
            }
            state.log.append(RequestLogEntry(
                containerID: containerID, environment: environment, time: time, node: configuration.nodeName, method: method, operation: operation,
                status: status, errorCode: errorCode ?? notes.refusals.keys.sorted().first, userRecordName: notes.userRecordName,
                recordTypes: notes.recordTypes, microseconds: microseconds, address: address
            ))
        }
    }

    /// Counts notifications made for a container environment's subscriptions.
    package func notificationsMade(_ count: Int, containerID: String, environment: Environment, time: Int64) {
        guard count > 0 else { return }
        let key = MinuteKey(containerID: containerID, environment: environment, minute: time / 60_000)
        state.withLock { state in
            if state.minutes[key] == nil {
                state.minutes[key] = TelemetryMinute(containerID: containerID, environment: environment, minute: key.minute, node: writer)
            }
            state.minutes[key]?.notifications += Int64(count)
        }
    }

    /// Writes what was counted and logged since the last write. Minutes that ended are written a last time and
    /// forgotten; the current one is written as it stands and kept.
    package func flush(now: Int64 = ServerClock.now()) async throws {
        let currentMinute = now / 60_000
        let today = now / 86_400_000
        let (minutes, users, log, dropped) = state.withLock { state in
            let minutes = Array(state.minutes.values)
            state.minutes = state.minutes.filter { $0.key.minute >= currentMinute }
            let users = state.activeUsers
            for (day, seen) in users where state.writtenUsers[day]?.count ?? 0 < 100_000 {
                state.writtenUsers[day, default: []].formUnion(seen)
            }
            state.writtenUsers = state.writtenUsers.filter { $0.key.day >= today - 1 }
            state.activeUsers = [:]
            let log = state.log
            state.log = []
            let dropped = state.droppedLogEntries
            state.droppedLogEntries = 0
            return (minutes, users, log, dropped)
        }
        if dropped > 0 {
            logger.warning("request log entries dropped: more requests than the log can take between writes", metadata: ["stratus.dropped": "\(dropped)"])
        }
        var known: [String: Bool] = [:]
        for containerID in Set(minutes.map(\.containerID)).union(users.keys.map(\.containerID)).union(log.map(\.containerID)) {
            known[containerID] = await containerExists(containerID)
        }
        try await store.saveTelemetryMinutes(minutes.filter { known[$0.containerID] == true })
        for (day, seen) in users where known[day.containerID] == true {
            try await store.noteActiveUsers(seen.sorted(), containerID: day.containerID, environment: day.environment, day: day.day)
        }
        // A few rows per write, each its own commit: one busy interval's log is thousands of rows, and a single
        // transaction of them would hold the store's writer (SQLite has one) while requests' writes wait behind it.
        let kept = log.filter { known[$0.containerID] == true }
        for start in stride(from: 0, to: kept.count, by: Self.logRowsPerWrite) {
            try await store.appendRequestLog(Array(kept[start..<min(start + Self.logRowsPerWrite, kept.count)]))
        }
    }

    /// Request log rows written in one commit.
    package static let logRowsPerWrite = 100

    package func run() async throws {
        let interval = Duration.milliseconds(Int64(max(0.05, configuration.telemetryFlushInterval) * 1000))
        let sweeper = Task {
            let lease = Lease(name: "telemetry-sweep", holder: Lease.holder(onNode: configuration.nodeName), duration: 3_600_000)
            await LeasedChore.run(lease, store: store, every: .seconds(600), logger: logger, failure: "sweeping old telemetry failed") {
                let now = ServerClock.now()
                let logDays = Int64(max(0, self.configuration.requestLogDays))
                try await self.store.sweepTelemetry(figuresBefore: now - Self.figuresKept, logBefore: now - logDays * 86_400_000)
            }
        }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                do {
                    try await self.flush()
                } catch {
                    self.logger.warning("telemetry could not be written", metadata: ["stratus.error": "\(String(reflecting: error))"])
                }
            }
        }
        sweeper.cancel()
        await sweeper.value
        try? await flush()
    }

    /// How long per-minute figures, active users and storage samples are kept: 30 days.
    package static let figuresKept: Int64 = 30 * 86_400_000
}
