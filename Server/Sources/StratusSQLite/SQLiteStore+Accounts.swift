import Foundation
import GRDB
import StratusModel
import StratusStore

/// Creating an account: its row, and its `Users` records through the record engine. The rest of the account
/// store is written once over this backend's tables (`AccountStore+SQLTables`).
extension SQLiteStore: AccountStore {
    public func createAccount(_ account: Account) async throws {
        try await write { batch in
            let db = batch.db
            let taken = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM accounts WHERE container_id = ? AND email = ?",
                arguments: [account.containerID, account.emailAddress]
            ) ?? false
            if taken { throw StorageError.accountExists }
            try db.execute(
                sql: """
                    INSERT INTO accounts (container_id, user_record_name, email, password_hash, given_name, family_name, phone_number,
                        discoverable, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    account.containerID, account.userRecordName, account.emailAddress, account.passwordHash,
                    account.givenName, account.familyName, account.phoneNumber, account.isDiscoverable, account.createdAt,
                ]
            )
            for zone in RecordEngine.userRecordZones(of: account) {
                let environment = zone.database.environment
                let zoneRow = try self.ensureZone(zone, db: db)
                let key = SchemaKey(containerID: account.containerID, environment: environment)
                let existing = try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM records WHERE zone_id = ? AND name = ?"), arguments: [zoneRow.id, account.userRecordName]
                ) ?? false
                guard let plan = try RecordEngine.userRecord(
                    named: account.userRecordName, in: zone.database, existing: existing, schema: try batch.schema(key),
                    timestamp: account.createdAt, sequence: self.sequence.upcoming()
                ) else { continue }
                self.sequence.advance(by: plan.sequencesUsed)
                var applier = PlanApplier(db: db, loader: SnapshotLoader(db: db, zone: zoneRow, caller: .anonymous))
                try applier.apply(plan)
                if let schema = plan.schema { batch.schemas[key] = schema }
            }
        }
    }
}
