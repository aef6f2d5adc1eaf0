import Foundation
import PostgresNIO
import StratusModel
import StratusStore

/// Creating an account: its row, and its `Users` records through the record engine. The rest of the account
/// store is written once over this backend's tables (`AccountStore+SQLTables`).
extension PostgresStore: AccountStore {
    public func createAccount(_ account: Account) async throws {
        try await writeRetryingConflicts { write in
            let inserted = try await write.connection.count(
                """
                INSERT INTO accounts (container_id, user_record_name, email, password_hash, given_name, family_name, phone_number,
                    discoverable, created_at)
                VALUES (\(account.containerID), \(account.userRecordName), \(account.emailAddress), \(account.passwordHash),
                    \(account.givenName), \(account.familyName), \(account.phoneNumber), \(account.isDiscoverable), \(account.createdAt))
                ON CONFLICT (container_id, email) DO NOTHING
                RETURNING 1
                """,
                logger: write.logger
            )
            if inserted == 0 { throw StorageError.accountExists }
            for zone in RecordEngine.userRecordZones(of: account) {
                let environment = zone.database.environment
                let zoneRow = try await Self.ensureZone(zone, write: write)
                let key = SchemaKey(containerID: account.containerID, environment: environment)
                let existing = try await write.connection.count(
                    "SELECT 1 FROM records WHERE zone_id = \(zoneRow.id) AND name = \(account.userRecordName)", logger: write.logger
                ) > 0
                guard let plan = try RecordEngine.userRecord(
                    named: account.userRecordName, in: zone.database, existing: existing, schema: try await write.schema(key, cache: self.schemas),
                    timestamp: account.createdAt, sequence: try await write.upcomingPosition()
                ) else { continue }
                _ = try await write.positions(plan.sequencesUsed)
                let loader = PostgresSnapshotLoader(connection: write.connection, logger: write.logger, zone: zoneRow, caller: .anonymous)
                try await PostgresPlanApplier(write: write, loader: loader).apply(plan)
                if let schema = plan.schema { write.setSchema(schema, for: key) }
            }
        }
    }
}
