import Foundation
import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    /// The primitive the store's plain tables are written once over: every backend gives it, with one meaning.
    static var sqlTableCases: [ConformanceCase] {
        [
            ConformanceCase("plain-table statements bind and read back every kind of value") { store in
                let tables = try #require(store as? any SQLTables, "every backend reaches its plain tables through SQLTables")
                try await tables.transaction([
                    "INSERT INTO meta (key, value) VALUES (\(.text("k1")), \(.bytes([0, 1, 255])))",
                    """
                    INSERT INTO accounts (container_id, user_record_name, email, password_hash, given_name, family_name, phone_number, \
                    discoverable, created_at) VALUES (\(.text("iCloud.a")), \(.text("_u1")), \(.text("u1@example.com")), \(.text("h")), \
                    \(SQLValue("Ünïcode ✓")), \(SQLValue(nil)), \(.null), \(.bool(true)), \(.integer(Int64.max)))
                    """,
                ])
                let meta = try #require(try await tables.rows("SELECT value FROM meta WHERE key = \(.text("k1"))").first)
                #expect(try meta.bytes("value") == [0, 1, 255])
                let account = try #require(try await store.account(containerID: "iCloud.a", userRecordName: "_u1"))
                #expect(account.givenName == "Ünïcode ✓" && account.familyName == nil && account.phoneNumber == nil)
                #expect(account.isDiscoverable && account.createdAt == Int64.max)
                let listed = try await tables.rows("SELECT email FROM accounts WHERE email\(anyOf: [.text("u1@example.com"), .text("nobody")])")
                #expect(try listed.map { try $0.text("email") } == ["u1@example.com"])
            },
            ConformanceCase("a plain-table transaction keeps nothing when its decision or a statement fails") { store in
                let tables = try #require(store as? any SQLTables, "every backend reaches its plain tables through SQLTables")
                await #expect {
                    try await tables.transaction(
                        ["INSERT INTO containers (id, api_token, created_at) VALUES (\(.text("iCloud.kept")), \(.text("t1")), \(.integer(1))) RETURNING id"],
                        then: { results in
                            #expect(try results[0].map { try $0.text("id") } == ["iCloud.kept"])
                            throw StorageError(.invalidArgument, "refused by the decision")
                        }
                    )
                } throws: { error in
                    (error as? StorageError)?.code == .invalidArgument
                }
                #expect(try await store.container(id: "iCloud.kept") == nil)

                await #expect(throws: (any Error).self) {
                    try await tables.transaction([
                        "INSERT INTO containers (id, api_token, created_at) VALUES (\(.text("iCloud.first")), \(.text("t2")), \(.integer(1)))",
                        // The same token again breaks the table's uniqueness: the whole transaction goes.
                        "INSERT INTO containers (id, api_token, created_at) VALUES (\(.text("iCloud.second")), \(.text("t2")), \(.integer(1)))",
                    ])
                }
                #expect(try await store.containers().isEmpty)
            },
        ]
    }
}
