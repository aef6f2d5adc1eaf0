import Foundation
import Synchronization
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
                    \(SQLValue("Ünïcode ✓")), \(SQLValue(nil as String?)), \(.null), \(.bool(true)), \(.integer(Int64.max)))
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
            ConformanceCase("a transaction body reads what it wrote, decides, and commits only when every statement succeeded") { store in
                let tables = try #require(store as? any SQLTables, "every backend reaches its plain tables through SQLTables")
                // Reads decide writes: the token is given only when the container has none of that value yet.
                let given = try await tables.transaction { transaction in
                    try await transaction.rows("INSERT INTO containers (id, api_token, created_at) VALUES (\(.text("iCloud.body")), \(.text("t1")), \(.integer(1)))")
                    let seen = try await transaction.rows("SELECT api_token FROM containers WHERE id = \(.text("iCloud.body"))")
                    #expect(try seen.map { try $0.text("api_token") } == ["t1"], "a body sees its own writes")
                    let taken = try await transaction.rows("SELECT id FROM containers WHERE api_token = \(.text("t2"))")
                    if taken.isEmpty {
                        try await transaction.rows("UPDATE containers SET api_token = \(.text("t2")) WHERE id = \(.text("iCloud.body"))")
                    }
                    transaction.emit(.containerChanged(containerID: "iCloud.body"))
                    return taken.isEmpty
                }
                #expect(given)
                #expect(try await store.container(id: "iCloud.body")?.apiToken == "t2")

                // A body that throws keeps nothing.
                await #expect {
                    try await tables.transaction { transaction -> Void in
                        try await transaction.rows("UPDATE containers SET api_token = \(.text("t3")) WHERE id = \(.text("iCloud.body"))")
                        throw StorageError(.invalidArgument, "refused by the body")
                    }
                } throws: { error in
                    (error as? StorageError)?.code == .invalidArgument
                }
                #expect(try await store.container(id: "iCloud.body")?.apiToken == "t2")

                // A failed statement ends the transaction even when the body catches its error.
                await #expect(throws: (any Error).self) {
                    try await tables.transaction { transaction in
                        try await transaction.rows("UPDATE containers SET api_token = \(.text("t4")) WHERE id = \(.text("iCloud.body"))")
                        do {
                            try await transaction.rows("INSERT INTO containers (id, api_token, created_at) VALUES (\(.text("iCloud.body")), \(.text("t5")), \(.integer(2)))")
                        } catch {
                            // Caught: the transaction must still not commit.
                        }
                        return true
                    }
                }
                #expect(try await store.container(id: "iCloud.body")?.apiToken == "t2")

                // Bodies that run together each see a consistent counter: nothing is lost.
                try await tables.transaction(["INSERT INTO meta (key, value) VALUES (\(.text("counter")), \(.bytes([0])))"])
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            try await tables.transaction { transaction in
                                let rows = try await transaction.rows("SELECT value FROM meta WHERE key = \(.text("counter"))\(.lockForUpdate)")
                                let count = try rows[0].bytes("value")[0]
                                try await transaction.rows("UPDATE meta SET value = \(.bytes([count + 1])) WHERE key = \(.text("counter"))")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                let counter = try await tables.rows("SELECT value FROM meta WHERE key = \(.text("counter"))")
                #expect(try counter.first?.bytes("value") == [8])
            },
            ConformanceCase("a savepoint undoes a refused step alone, and work after the commit runs only once it committed") { store in
                let tables = try #require(store as? any SQLTables, "every backend reaches its plain tables through SQLTables")
                @Sendable func insert(_ id: String, token: String) -> SQLFragment {
                    "INSERT INTO containers (id, api_token, created_at) VALUES (\(.text(id)), \(.text(token)), \(.integer(1)))"
                }
                let ranAfterCommit = Mutex<[String]>([])
                try await tables.transaction { transaction in
                    try await transaction.rows(insert("iCloud.before", token: "t1"))
                    await #expect(throws: StorageError.self) {
                        try await transaction.savepoint {
                            try await transaction.rows(insert("iCloud.refused", token: "t2"))
                            throw StorageError(.invalidArgument, "a step the rules refuse")
                        }
                    }
                    let kept = try await transaction.savepoint {
                        try await transaction.rows(insert("iCloud.after", token: "t3"))
                        return "iCloud.after"
                    }
                    #expect(kept == "iCloud.after")
                    try await transaction.afterCommit { ranAfterCommit.withLock { $0.append("committed") } }
                    #expect(ranAfterCommit.withLock { $0 }.isEmpty, "work after the commit waits for it")
                }
                #expect(ranAfterCommit.withLock { $0 } == ["committed"])
                #expect(try await store.containers().map(\.id).sorted() == ["iCloud.after", "iCloud.before"])

                // A transaction that rolls back runs none of its work after the commit.
                await #expect(throws: StorageError.self) {
                    try await tables.transaction { transaction -> Void in
                        try await transaction.rows(insert("iCloud.rolledBack", token: "t4"))
                        try await transaction.afterCommit { ranAfterCommit.withLock { $0.append("rolled back") } }
                        throw StorageError(.invalidArgument, "refused by the body")
                    }
                }
                #expect(ranAfterCommit.withLock { $0 } == ["committed"])
                #expect(try await store.container(id: "iCloud.rolledBack") == nil)
            },
            ConformanceCase("change positions are taken in order: a run of them at once, or one by one in a body") { store in
                let tables = try #require(store as? any SQLTables, "every backend reaches its plain tables through SQLTables")
                // The statements are written with the first position taken, and `then` sees their rows before the commit.
                let seen = Mutex<Int64?>(nil)
                let results = try await tables.transaction(taking: 3, { first in
                    ["SELECT \(.integer(first)) AS first, \(.integer(first + 2)) AS last"]
                }, then: { results in
                    seen.withLock { $0 = try? results[0][0].integer("first") }
                    return []
                })
                let first = try results[0][0].integer("first")
                #expect(seen.withLock { $0 } == first)

                let (one, two) = try await tables.transaction { transaction in
                    let one = try await transaction.positions(2)
                    return (one, try await transaction.position())
                }
                #expect(one >= first + 3, "a later transaction takes positions after the three taken before (\(first), then \(one))")
                #expect(two >= one + 2, "a body's second call takes positions after its first run of two (\(one), then \(two))")
            },
        ]
    }
}
