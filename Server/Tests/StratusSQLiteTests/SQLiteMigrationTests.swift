import Foundation
import GRDB
import StratusModel
@testable import StratusSQLite
import StratusStore
import Testing

/// Files written by earlier versions open with what they hold intact.
@Suite struct SQLiteMigrationTests {
    @Test("a file from before notifications took change positions keeps its outbox and hands out ids past every one it gave")
    func notificationPositions() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/stratus.sqlite"
        let zone = DatabaseRef.publicDatabase("iCloud.test.Migration", .development).zone(ZoneID.defaultZoneName)
        let stamp = RecordStamp(timestamp: 1, userRecordName: "_u", deviceID: "d")
        let record = StratusModel.Record(
            recordName: "r1", recordType: "Item", recordChangeTag: "t1", fields: EncodedFields([:]), created: stamp, modified: stamp, zoneID: zone.wireZoneID
        )
        let event = RecordEvent(kind: .created, zone: zone, record: record, fields: [:])

        // The file as the previous version left it: a few changes, many notifications (one change reaches many
        // subscribers), and a change still waiting in the outbox under its old id column.
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteMigrations.migrator.migrate(pool, upTo: "v15-transfers")
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('change_seq', 12) ON CONFLICT (key) DO UPDATE SET value = 12")
                for id in [40, 700] {
                    try db.execute(
                        sql: """
                            INSERT INTO notifications (id, container_id, environment, recipient, subscription_id, payload, created_at)
                            VALUES (?, 'iCloud.test.Migration', 'development', '_u', 's', '{}', 1)
                            """,
                        arguments: [id]
                    )
                }
                try db.execute(sql: "INSERT INTO record_outbox (id, body) VALUES (9, ?)", arguments: [event.encoded])
            }
            try pool.close()
        }

        let store = try SQLiteStore(configuration: .init(path: path))
        #expect(try await store.latestNotificationID() == 700)
        let pending = try await store.pendingRecordEvents(limit: 10)
        #expect(pending.map(\.id) == [9], "the waiting change is still in the outbox: \(pending.map(\.id))")
        var outcome = EventOutcome()
        outcome.notifications = [
            PendingNotification(containerID: "iCloud.test.Migration", environment: .development, recipient: "_u", subscriptionID: "s", payload: "{}"),
        ]
        let stored = try await store.storeMatchedRecordEvents(through: 9, count: 1, outcome: outcome)
        #expect(stored.count == 1 && stored[0].id > 700, "a new notification comes after every earlier one: \(stored.map(\.id))")
        let after = try await store.notifications(for: "_u", containerID: "iCloud.test.Migration", environment: .development, after: 700, limit: 10)
        #expect(after.map(\.id) == stored.map(\.id))
        #expect(try await store.pendingRecordEvents(limit: 10).isEmpty)
    }

    @Test("a file from before accounts could lack an address keeps every account, column by column, and takes anonymous ones")
    func accountsWithoutAddress() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/stratus.sqlite"
        do {
            let pool = try DatabasePool(path: path)
            try SQLiteMigrations.migrator.migrate(pool, upTo: "v18-passkeys")
            try await pool.write { db in
                try db.execute(sql: """
                    INSERT INTO accounts (container_id, user_record_name, email, password_hash, given_name, family_name, created_at, phone_number,
                        discoverable, email_verified, disabled, deleting, totp_secret, totp_enabled, totp_last_step, recovery_codes)
                    VALUES ('iCloud.m', '_ann', 'ann@example.com', 'hash', 'Ann', 'Lee', 5, '+3312345', 1, 1, 1, 0, 'sealed', 1, 77, '["r"]'),
                        ('iCloud.m', '_dev', '', '', 'Developer', NULL, 6, NULL, 0, 0, 0, 0, NULL, 0, 0, '[]')
                    """)
            }
            try pool.close()
        }
        let store = try SQLiteStore(configuration: .init(path: path))
        let ann = try #require(try await store.account(containerID: "iCloud.m", emailAddress: "ann@example.com"))
        #expect(ann.userRecordName == "_ann" && ann.passwordHash == "hash" && ann.givenName == "Ann" && ann.familyName == "Lee" && ann.createdAt == 5)
        #expect(ann.phoneNumber == "+3312345" && ann.isDiscoverable && ann.isEmailVerified && ann.isDisabled && !ann.isBeingDeleted && !ann.isAnonymous)
        #expect(ann.secondFactor.sealedTOTPSecret == "sealed" && ann.secondFactor.isTOTPEnabled && ann.secondFactor.lastTOTPStep == 77)
        #expect(ann.secondFactor.recoveryCodeHashes == ["r"])
        #expect(try await store.account(containerID: "iCloud.m", emailAddress: "")?.isDeveloper == true)
        #expect(try await store.account(containerID: "iCloud.m", phoneNumber: "+3312345")?.userRecordName == "_ann")
        for user in ["_x1", "_x2"] {
            try await store.createAccount(Account(
                containerID: "iCloud.m", userRecordName: user, emailAddress: nil, passwordHash: "", givenName: nil, familyName: nil, isAnonymous: true,
                createdAt: 7
            ))
        }
        #expect(try await store.anonymousAccounts(containerID: "iCloud.m", inactiveSince: 8, limit: 10).map(\.userRecordName) == ["_x1", "_x2"])
    }
}
