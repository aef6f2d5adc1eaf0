import Foundation
import GRDB
import StratusModel
import StratusStore

extension SQLiteStore {
    /// Puts a write's record changes in the outbox, in its transaction, when the container environment has
    /// subscriptions (without one, no change can notify anybody).
    func enqueue(_ events: [RecordEvent], in batch: WriteBatch, database: DatabaseRef) throws {
        guard !events.isEmpty else { return }
        guard try batch.db.read(NotificationTables.anySubscription(containerID: database.containerID, environment: database.environment)) else {
            return
        }
        let insert = try batch.db.cachedStatement(sql: "INSERT INTO record_outbox (position, body) VALUES (?, ?)")
        for event in events {
            try insert.execute(arguments: [nextSequence(), event.encoded])
        }
        batch.emit(.recordEventsPending)
    }
}
