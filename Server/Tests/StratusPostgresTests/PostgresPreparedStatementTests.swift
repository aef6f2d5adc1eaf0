import Foundation
import PostgresNIO
import StratusModel
@testable import StratusPostgres
import StratusStore
import StratusStoreTesting
import Testing

/// Statements run on every request are prepared: PostgreSQL plans them once per connection, not once per call.
@Suite struct PostgresPreparedStatementTests {
    @Test("a query text keeps its slot; other value types take another; past the capacity texts run unprepared")
    func slots() {
        let shapes = StatementShapes(capacity: 2)
        let first = shapes.slot(for: "SELECT $1", types: ["Int64"])
        #expect(first == 0)
        #expect(shapes.slot(for: "SELECT $1", types: ["Int64"]) == 0)
        #expect(shapes.slot(for: "SELECT $1", types: ["String"]) == 1)
        #expect(shapes.sql(ofSlot: 1) == "SELECT $1")
        #expect(shapes.slot(for: "SELECT $1 + 1", types: ["Int64"]) == nil)
        #expect(shapes.slot(for: "SELECT $1", types: ["String"]) == 1)
    }

    @Test("lookups and queries of one shape, in any zone, run as prepared statements that PostgreSQL stops planning, with the right answers")
    func preparedOnTheConnection() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            // One connection for the store's calls (the event listener holds another), so every call below shares it.
            let store = try await PostgresStore.connect(configuration: try testConfiguration(database.url, poolSize: 1), logger: quietLogger)
            do {
                let zone = DatabaseRef.privateDatabase("iCloud.test.Prepared", .development, owner: "_a11ce000000000000000000000000000").zone("Items")
                // Two zones of the same records: queries of one shape share a statement whichever zone they read.
                let other = zone.database.zone("More")
                _ = try await store.modifyZones([.create(zoneName: "Items"), .create(zoneName: "More")], in: zone.database)
                for (target, prefix) in [(zone, "i"), (other, "m")] {
                    let operations = (0..<20).map { index in
                        RecordOperation(type: .create, recordName: "\(prefix)\(index)", recordType: "Item", fields: ["rank": FieldInput(value: .integer(Int64(index)), type: nil)])
                    }
                    _ = try await store.modifyRecords(RecordBatch(
                        zone: target, operations: operations, atomic: true, caller: Caller(userRecordName: zone.database.ownerRecordName), timestamp: 1_700_000_000_000
                    ))
                }
                for index in 0..<12 {
                    let found = try await store.lookupRecords(["i\(index)"], in: zone)
                    #expect(found["i\(index)"]?.fields.json.contains(#"{"rank":{"type":"INT64","value":\#(index)}}"#) == true, "\(found)")
                    let filter = FilterInput(comparator: "EQUALS", fieldName: "rank", systemFieldName: nil, fieldValue: FieldInput(value: .integer(Int64(index)), type: nil), distance: nil)
                    for (zoneName, prefix) in [("Items", "i"), ("More", "m")] {
                        let page = try await store.queryRecords(RecordQuery(
                            database: zone.database, zoneName: zoneName, query: QueryInput(recordType: "Item", filterBy: [filter], sortBy: []), limit: 10, continuationMarker: nil
                        ))
                        #expect(page.records.map(\.recordName) == ["\(prefix)\(index)"])
                        #expect(page.records.first?.zoneID.zoneName == zoneName)
                    }
                }
                // A zone that does not exist is an error, as before the statement found zones itself.
                let rankOne = FilterInput(comparator: "EQUALS", fieldName: "rank", systemFieldName: nil, fieldValue: FieldInput(value: .integer(1), type: nil), distance: nil)
                let missing = RecordQuery(
                    database: zone.database, zoneName: "Missing", query: QueryInput(recordType: "Item", filterBy: [rankOne], sortBy: []), limit: 10,
                    continuationMarker: nil
                )
                await #expect(throws: StorageError.self) { try await store.queryRecords(missing) }
                let prepared = try await store.read { connection in
                    try await connection.rows(
                        PostgresQuery(unsafeSQL: "SELECT name, generic_plans, custom_plans, statement FROM pg_prepared_statements WHERE name LIKE 'stratus_%'"),
                        as: (String, Int64, Int64, String).self, logger: quietLogger
                    )
                }
                let shapes = prepared.filter { $0.0.hasPrefix("stratus_shape_") }
                let seen = prepared.map { "\($0.0) (\($0.1) generic, \($0.2) custom): \($0.3.prefix(120))" }
                // The store's statements written once are prepared by shape like queries; a query's page statement selects from a sub-select.
                let queries = shapes.filter { $0.3.hasPrefix("SELECT * FROM (") }
                let lookups = shapes.filter { $0.3.contains("FROM zones z JOIN records r ON r.zone_id = z.id") }
                #expect(queries.count == 1, "one query shape, one statement: \(seen)")
                #expect(lookups.count == 1, "one lookup statement for every record name and zone: \(seen)")
                // PostgreSQL plans a statement for its first five runs, then keeps a generic plan when it costs no more.
                for (name, generic, custom, _) in queries + lookups {
                    #expect(generic > 0, "\(name) planned \(custom) times, never generically")
                }
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }
}
