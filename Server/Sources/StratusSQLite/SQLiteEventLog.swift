import Foundation
import GRDB
import Logging
import StratusStore
import Synchronization

/// Delivers the store events written in `store_events` to this process's observers, in id order, whichever
/// process wrote them.
///
/// The log watches the file through a connection of its own: SQLite's `PRAGMA data_version` on that connection
/// changes whenever any other connection, of this process or another, commits. ``catchUp()`` reads the new
/// events only then, so it is cheap to call before every security check. It runs at once after this process
/// commits events, and, while the store runs as a service, every ``pollInterval`` for the commits of other processes.
final class SQLiteEventLog: Sendable {
    /// How often the file is checked for other processes' events.
    static let pollInterval = Duration.milliseconds(50)

    private struct State {
        /// The last event delivered.
        var lastID: Int64
        /// `data_version` when the log was last read.
        var dataVersion: Int64?
        var observers: [@Sendable (StoreEventDelivery) -> Void] = []
    }

    private let connection: DatabaseQueue
    /// Held while reading and delivering, so that deliveries never overlap or reorder.
    private let state: Mutex<State>
    private let logger: Logger
    /// The delay of the newest event delivered.
    private let lag = EventLag()
    var lastLagMilliseconds: Int64? { lag.lastMilliseconds }

    /// Opens the log's connection; events committed before this are not delivered.
    init(path: String, logger: Logger) throws {
        var configuration = GRDB.Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "stratus.events"
        connection = try DatabaseQueue(path: path, configuration: configuration)
        // The last id handed out, even when pruning removed its row.
        let last = try connection.inDatabase { db in
            try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'store_events'") ?? 0
        }
        state = Mutex(State(lastID: last))
        self.logger = logger
    }

    func observe(_ observer: @escaping @Sendable (StoreEventDelivery) -> Void) {
        state.withLock { $0.observers.append(observer) }
    }

    /// Reads and delivers every event committed since the last delivery.
    func catchUp() throws {
        try state.withLock { state in
            let (deliveries, version, lastID, newest) = try connection.inDatabase { db -> ([StoreEventDelivery], Int64, Int64, Int64?) in
                let version = try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
                guard version != state.dataVersion else { return ([], version, state.lastID, nil) }
                let (deliveries, last, newest) = try Self.read(after: state.lastID, db: db)
                return (deliveries, version, last, newest)
            }
            if let newest { lag.record(committedAt: newest) }
            state.dataVersion = version
            state.lastID = lastID
            for delivery in deliveries {
                for observer in state.observers { observer(delivery) }
            }
        }
    }

    /// Every event after `lastID`, with a ``StoreEventDelivery/missed`` first when some were pruned unread.
    /// - Returns: the deliveries, the last id read, and when the newest event read was committed.
    private static func read(after lastID: Int64, db: Database) throws -> ([StoreEventDelivery], Int64, Int64?) {
        var deliveries: [StoreEventDelivery] = []
        var last = lastID
        var newest: Int64?
        while true {
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, body, created_at FROM store_events WHERE id > ? ORDER BY id LIMIT ?"), arguments: [last, StorePolicy.eventPageSize]
            )
            guard let first = rows.first else { break }
            // Ids are consecutive (one writer at a time, and a rolled-back id is handed out again): a jump means
            // the events in between were pruned before this log read them.
            if deliveries.isEmpty, first["id"] as Int64 != lastID + 1 { deliveries.append(.missed) }
            deliveries.append(.committed(rows.compactMap { StoreEvent(encoded: $0["body"]) }))
            last = rows.last!["id"]
            newest = rows.last!["created_at"]
            if rows.count < StorePolicy.eventPageSize { break }
        }
        return (deliveries, last, newest)
    }

    /// Polls for other processes' events until the task is cancelled (the store's service runs this).
    func followOtherProcesses() async {
        var failing = false
        while (try? await Task.sleep(for: Self.pollInterval)) != nil {
            do {
                try catchUp()
                failing = false
            } catch {
                if !failing { logger.warning("reading store events failed", metadata: ["stratus.error": "\(String(reflecting: error))"]) }
                failing = true
            }
        }
    }
}
