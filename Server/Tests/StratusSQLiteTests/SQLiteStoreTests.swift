import Foundation
import GRDB
import StratusModel
import StratusSQLite
import StratusStore
import StratusStoreTesting
import Testing

@Suite struct SQLiteStoreTests {
    static let database = DatabaseRef.publicDatabase("iCloud.test.SQLite", .development)
    static let zone = database.zone(ZoneID.defaultZoneName)

    func create(_ name: String, _ fields: [String: FieldInput]) -> RecordOperation {
        RecordOperation(type: .create, recordName: name, recordType: "Item", fields: fields)
    }

    func batch(_ operations: [RecordOperation]) -> RecordBatch {
        RecordBatch(zone: Self.zone, operations: operations, atomic: false, caller: Caller(userRecordName: "_u"), timestamp: 1)
    }

    @Test("the store says where it lives and that no network reaches it; closed, its write-ahead log is back in the file, and reopened it has every record")
    func closeCopiesTheLogBack() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        #expect(store.location == path && !store.isReachedOverNetwork)
        _ = try await store.modifyRecords(batch((0..<50).map { create("r\($0)", ["n": FieldInput(value: .integer(Int64($0)))]) }))
        await store.close()
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        #expect(log == 0, "the write-ahead log holds \(log) bytes after close")
        let reopened = try SQLiteStore(configuration: .init(path: path))
        let found = try await reopened.lookupRecords((0..<50).map { "r\($0)" }, in: Self.zone)
        #expect(found.count == 50)
    }

    @Test("an equality query is answered from the field index without scanning the records")
    func equalityQueryUsesIndex() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        let operations = (0..<2_000).map { create("r\($0)", ["bucket": FieldInput(value: .integer(Int64($0 % 40)))]) }
        for chunk in stride(from: 0, to: operations.count, by: 200) {
            _ = try await store.modifyRecords(batch(Array(operations[chunk..<chunk + 200])))
        }
        let page = try await store.queryRecords(RecordQuery(
            database: Self.database, zoneName: ZoneID.defaultZoneName,
            query: QueryInput(recordType: "Item", filterBy: [FilterInput(comparator: "EQUALS", fieldName: "bucket", fieldValue: FieldInput(value: .integer(7)))]),
            limit: 200, continuationMarker: nil
        ))
        #expect(page.records.count == 50)

        // The same statement the store runs, asked for its plan: records are reached by rowid from the index.
        let plan = try await store.queryPlan(for: RecordQuery(
            database: Self.database, zoneName: ZoneID.defaultZoneName,
            query: QueryInput(recordType: "Item", filterBy: [FilterInput(comparator: "EQUALS", fieldName: "bucket", fieldValue: FieldInput(value: .integer(7)))]),
            limit: 200, continuationMarker: nil
        ))
        #expect(!plan.contains { $0.contains("SCAN r") || $0.contains("SCAN records") }, "plan: \(plan)")
        #expect(plan.contains { $0.contains("field_index") }, "plan: \(plan)")
    }

    /// `cat = 'c3' AND n > R ORDER BY n DESC`, 50 at a time: the query apps run most.
    static func newestOfKind(after floor: Int64, marker: String? = nil) -> RecordQuery {
        RecordQuery(
            database: database, zoneName: ZoneID.defaultZoneName,
            query: QueryInput(
                recordType: "Item",
                filterBy: [
                    FilterInput(comparator: "EQUALS", fieldName: "cat", fieldValue: FieldInput(value: .string("c3"))),
                    FilterInput(comparator: "GREATER_THAN", fieldName: "n", fieldValue: FieldInput(value: .integer(floor))),
                ],
                sortBy: [SortInput(fieldName: "n", ascending: false)]
            ),
            limit: 50, continuationMarker: marker
        )
    }

    @Test("an equality filter, a range and a sort read one page from a compound index, added in development")
    func compoundIndexPlan() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        let operations = (0..<4_000).map { create("r\($0)", ["cat": FieldInput(value: .string("c\($0 % 10)")), "n": FieldInput(value: .integer(Int64($0)))]) }
        for chunk in stride(from: 0, to: operations.count, by: 200) {
            _ = try await store.modifyRecords(batch(Array(operations[chunk..<chunk + 200])))
        }
        // The first query finds no index and adds INDEX (cat, n), as development adds single-field indexes, and
        // indexes the records already there.
        _ = try await store.queryRecords(Self.newestOfKind(after: 0))
        let schema = try await store.schema(containerID: Self.database.containerID, environment: .development)
        #expect(schema.recordTypes["Item"]?.compoundIndexes == [CompoundIndex(["cat", "n"])])

        let page = try await store.queryRecords(Self.newestOfKind(after: 1_000))
        #expect(page.records.map(\.recordName) == stride(from: 3_993, to: 3_493, by: -10).map { "r\($0)" })
        let next = try await store.queryRecords(Self.newestOfKind(after: 1_000, marker: page.continuationMarker))
        #expect(next.records.first?.recordName == "r3493")

        // The index's primary key, searched over (cat = c3, n > 1000) and read in order: no sort of the matches.
        let plan = try await store.queryPlan(for: Self.newestOfKind(after: 1_000))
        #expect(plan.first == "walk INDEX (cat,n) descending, an equality prefix, 2 bounds, 0 filters checked", "plan: \(plan)")
        #expect(plan.contains { $0.hasPrefix("SEARCH d USING PRIMARY KEY (zone_id=? AND type=? AND field=? AND kind=? AND value>? AND value<?)") }, "plan: \(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "plan: \(plan)")
    }

    @Test("without a compound index, a bounded sort field is walked in order and the other filters checked on each record")
    func sortFieldWalkPlan() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        // Production takes no index on its own: its schema as deployed, without a compound index.
        let deployed = try SchemaLanguage.parse("DEFINE SCHEMA RECORD TYPE Item (cat STRING QUERYABLE, n INT64 QUERYABLE SORTABLE, GRANT CREATE TO \"_icloud\", GRANT READ TO \"_world\");")
        try await store.changeSchemas(containerID: Self.database.containerID) { _, production in
            production.recordTypes["Item"] = deployed.recordTypes["Item"]
        }
        let database = DatabaseRef.publicDatabase(Self.database.containerID, .production)
        let operations = (0..<1_000).map { create("r\($0)", ["cat": FieldInput(value: .string("c\($0 % 10)")), "n": FieldInput(value: .integer(Int64($0)))]) }
        for chunk in stride(from: 0, to: operations.count, by: 200) {
            _ = try await store.modifyRecords(RecordBatch(
                zone: database.zone(ZoneID.defaultZoneName), operations: Array(operations[chunk..<chunk + 200]), atomic: false,
                caller: Caller(userRecordName: "_u"), timestamp: 1
            ))
        }
        var query = Self.newestOfKind(after: 100)
        query.database = database
        let page = try await store.queryRecords(query)
        #expect(page.records.map(\.recordName) == stride(from: 993, to: 493, by: -10).map { "r\($0)" })
        let plan = try await store.queryPlan(for: query)
        #expect(plan.first == "walk n descending, no equality prefix, 1 bound, 1 filter checked", "plan: \(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN") }, "plan: \(plan)")
    }

    @Test("stores of separate processes writing one file at once keep one exact change feed")
    func changeFeedAcrossProcesses() async throws {
        let (first, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        // Each store is what a process has: its own connections, caches and sequence in memory.
        let second = try SQLiteStore(configuration: .init(path: path))
        let third = try SQLiteStore(configuration: .init(path: path))
        // The conformance writers write as their fixture user, whose private database this is.
        let zone = DatabaseRef.privateDatabase("iCloud.test.SQLite", .development, owner: "_a11ce000000000000000000000000000").zone("Busy")
        _ = try await first.modifyZones([.create(zoneName: "Busy")], in: zone.database)
        let exact = try await StoreConformance.syncWhileWriting(writers: [first, second, third, second], readers: [first, third], zone: zone)
        #expect(exact == [true, true])
        // Change tags are unique across the processes, too.
        let records = try await third.lookupRecords((0..<60).flatMap { n in (0..<4).map { "w\($0)-\(n)" } }, in: zone)
        #expect(records.count == 240 && Set(records.values.map(\.recordChangeTag)).count == 240)
    }

    @Test("concurrent writers share commits and every write gets its own change tag")
    func groupCommit() async throws {
        let (store, path) = try makeTemporaryStore(durability: .full)
        defer { removeTemporaryStore(at: path) }
        let tags = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let results = try await store.modifyRecords(batch([create("c\(index)", ["n": FieldInput(value: .integer(Int64(index)))])]))
                    guard case .saved(let record) = results[0] else { throw StorageError(.internalFailure, "not saved") }
                    return record.recordChangeTag
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(tags).count == 64)
        let found = try await store.lookupRecords((0..<64).map { "c\($0)" }, in: Self.zone)
        #expect(found.count == 64)
    }

    @Test("a failing write in a shared commit does not undo the others")
    func isolatedFailures() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        _ = try await store.modifyRecords(batch([create("taken", [:])]))
        async let good = store.modifyRecords(batch([create("fresh", [:])]))
        async let bad = store.modifyRecords(batch([create("taken", [:])]))
        let (goodResults, badResults) = try await (good, bad)
        guard case .saved = goodResults[0], case .failed(let failure) = badResults[0] else {
            Issue.record("unexpected results \(goodResults) \(badResults)")
            return
        }
        #expect(failure.error.code == .conflict && failure.serverRecord?.recordName == "taken")
    }

    @Test("data, schema and change order survive reopening the file")
    func reopen() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        _ = try await store.modifyRecords(batch([create("a", ["title": FieldInput(value: .string("kept"))])]))
        let before = try await store.zoneChanges(ZoneChangesQuery(zone: Self.zone, syncToken: nil, limit: 200))
        let reopened = try SQLiteStore(configuration: .init(path: path))
        let found = try await reopened.lookupRecords(["a"], in: Self.zone)
        #expect(try found["a"]?.fields.decode()["title"] == .string("kept"))
        let schema = try await reopened.schema(containerID: Self.database.containerID, environment: .development)
        #expect(schema.recordTypes["Item"]?.fields["title"]?.type == FieldType(.string))
        _ = try await reopened.modifyRecords(batch([create("b", [:])]))
        let after = try await reopened.zoneChanges(ZoneChangesQuery(zone: Self.zone, syncToken: before.syncToken, limit: 200))
        #expect(after.changes.map(\.recordName) == ["b"])
    }

    @Test("the background checkpointer runs beside concurrent writes without failing, and stops when cancelled")
    func checkpointService() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        let service = Task { try await store.run() }
        for round in 0..<10 {
            let operations = (0..<100).map { create("w\(round)-\($0)", ["body": FieldInput(value: .string(String(repeating: "x", count: 2_000)))]) }
            _ = try await store.modifyRecords(batch(operations))
            try await Task.sleep(for: .milliseconds(60))
        }
        service.cancel()
        try await service.value
        let found = try await store.lookupRecords(["w0-0", "w9-99"], in: Self.zone)
        #expect(found.count == 2)
        // Everything the checkpointer copied is in the main file: it grew beyond its empty size.
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(size > 1_000_000)
    }

    @Test("a forged continuation marker is refused, not trusted")
    func forgedMarker() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        _ = try await store.modifyRecords(batch([create("a", ["n": FieldInput(value: .integer(1))]), create("b", ["n": FieldInput(value: .integer(2))])]))
        let input = QueryInput(recordType: "Item", sortBy: [SortInput(fieldName: "n")])
        let first = try await store.queryRecords(RecordQuery(database: Self.database, zoneName: ZoneID.defaultZoneName, query: input, limit: 1, continuationMarker: nil))
        let marker = try #require(first.continuationMarker)
        // Same fingerprint, no sort keys: a client rewrote the marker.
        var base64 = marker.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        var payload = try #require(try JSONSerialization.jsonObject(with: Data(base64Encoded: base64)!) as? [String: Any])
        payload["k"] = []
        let forged = try JSONSerialization.data(withJSONObject: payload).base64EncodedString()
        await #expect(throws: StorageError.self) {
            try await store.queryRecords(RecordQuery(database: Self.database, zoneName: ZoneID.defaultZoneName, query: input, limit: 1, continuationMarker: forged))
        }
    }

    @Test("an index declared over many existing records is built in the background; queries wait for it")
    func backgroundIndexBuild() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        for chunk in 0..<26 {
            _ = try await store.modifyRecords(batch((0..<200).map { create("r\(chunk)-\($0)", ["n": FieldInput(value: .integer(Int64($0 % 10)))]) }))
        }
        try await store.changeSchemas(containerID: Self.database.containerID) { development, _ in
            development.recordTypes["Item"]?.fields["n"]?.indexes = [.queryable]
        }
        #expect(try await store.indexesBeingBuilt(containerID: Self.database.containerID, environment: .development) == ["Item.n"])
        let query = RecordQuery(
            database: Self.database, zoneName: ZoneID.defaultZoneName,
            query: QueryInput(recordType: "Item", filterBy: [FilterInput(comparator: "EQUALS", fieldName: "n", fieldValue: FieldInput(value: .integer(3)))]),
            limit: 200, continuationMarker: nil
        )
        await #expect {
            _ = try await store.queryRecords(query)
        } throws: { error in
            (error as? StorageError)?.code == .unavailable
        }
        let service = Task { try await store.run() }
        for _ in 0..<100 where try await !store.indexesBeingBuilt(containerID: Self.database.containerID, environment: .development).isEmpty {
            try await Task.sleep(for: .milliseconds(100))
        }
        service.cancel()
        try await service.value
        #expect(try await store.indexesBeingBuilt(containerID: Self.database.containerID, environment: .development).isEmpty)
        var total = 0
        var marker: String?
        repeat {
            var page = query
            page.continuationMarker = marker
            let result = try await store.queryRecords(page)
            total += result.records.count
            marker = result.continuationMarker
        } while marker != nil
        #expect(total == 520)
    }

    @Test("fields the schema does not index keep no index rows")
    func selectiveIndexing() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        _ = try await store.modifyRecords(batch([create("a", ["body": FieldInput(value: .string("many words here"))])]))
        let rows = try await DatabaseQueue(path: path).read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM field_index") }
        #expect(rows == 0)
    }

    @Test("the file is in WAL mode")
    func walMode() async throws {
        let (_, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        let queue = try DatabaseQueue(path: path)
        let mode = try await queue.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
    }
}
