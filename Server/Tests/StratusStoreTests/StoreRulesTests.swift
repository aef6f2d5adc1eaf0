import StratusModel
import StratusStore
import Testing

/// Rules every backend takes from the store: zones, the index work of a schema change, the planning bound.
@Suite struct StoreRulesTests {
    static let privateDatabase = DatabaseRef.privateDatabase("iCloud.com.example.App", .development, owner: "_ann")
    static let publicDatabase = DatabaseRef.publicDatabase("iCloud.com.example.App", .development)

    @Test("zone operations: custom zones only outside the public database, valid names only, the default zone never deleted")
    func zoneChecks() throws {
        try ZoneRules.check(.create(zoneName: "Notes"), on: Self.privateDatabase.zone("Notes"))
        try ZoneRules.check(.delete(zoneName: "Notes"), on: Self.privateDatabase.zone("Notes"))
        try ZoneRules.check(.create(zoneName: ZoneID.defaultZoneName), on: Self.publicDatabase.zone(ZoneID.defaultZoneName))
        let refused: [(ZoneOperation, ZoneRef, String)] = [
            (.create(zoneName: "Notes"), Self.publicDatabase.zone("Notes"), "the public database has only the default zone"),
            (.create(zoneName: "_mine"), Self.privateDatabase.zone("_mine"), "zone name '_mine' is not valid"),
            (.create(zoneName: "two\nlines"), Self.privateDatabase.zone("two\nlines"), "zone name 'two\nlines' is not valid"),
            (.delete(zoneName: ZoneID.defaultZoneName), Self.privateDatabase.zone(ZoneID.defaultZoneName), "the default zone cannot be deleted"),
        ]
        for (operation, zone, message) in refused {
            let error = #expect(throws: StorageError.self) { try ZoneRules.check(operation, on: zone) }
            #expect(error?.code == .invalidArgument && error?.message == message, "\(operation): \(String(describing: error))")
        }
        #expect(throws: StorageError.self) { try ZoneRules.requireCreatedOnWrite(Self.privateDatabase.zone("Notes")) }
        try ZoneRules.requireCreatedOnWrite(Self.privateDatabase.zone(ZoneID.defaultZoneName))
        #expect(ZoneRules.missing("Notes").code == .zoneNotFound)
    }

    @Test("the default zone is listed and found before any write stores it, and once only after")
    func defaultZoneAlwaysExists() {
        let notes = ZoneInfo(zoneID: Self.privateDatabase.wireZoneID("Notes"), syncToken: "t", atomic: true)
        let listed = ZoneRules.listing([notes], in: Self.privateDatabase)
        #expect(listed.map(\.zoneID.zoneName) == [ZoneID.defaultZoneName, "Notes"])
        let stored = ZoneInfo(zoneID: Self.privateDatabase.wireZoneID(ZoneID.defaultZoneName), syncToken: "s", atomic: false)
        #expect(ZoneRules.listing([stored, notes], in: Self.privateDatabase).map(\.syncToken) == ["s", "t"])
        let found = ZoneRules.found([ZoneID.defaultZoneName, "Gone"], stored: [:], in: Self.privateDatabase)
        #expect(Set(found.keys) == [ZoneID.defaultZoneName])
        #expect(ZoneRules.found(["Notes"], stored: ["Notes": notes], in: Self.privateDatabase).count == 1)
    }

    @Test("a schema change's index work: fields made searchable and compound indexes added are built, removed compound indexes dropped")
    func indexBuildChanges() throws {
        let old = try SchemaLanguage.parse("""
            DEFINE SCHEMA
                RECORD TYPE Item (cat STRING, n INT64 QUERYABLE, INDEX (n, cat));
                RECORD TYPE Other (x STRING QUERYABLE);
            """)
        let new = try SchemaLanguage.parse("""
            DEFINE SCHEMA
                RECORD TYPE Item (cat STRING QUERYABLE, n INT64 QUERYABLE, INDEX (cat, n));
                RECORD TYPE Other (x STRING QUERYABLE);
            """)
        let changes = IndexBuildChange.changes(from: old, to: new)
        #expect(changes.map(\.recordType) == ["Item"])
        let item = try #require(changes.first)
        #expect(item.added.map(\.name).sorted() == ["cat", new.recordTypes["Item"]!.compoundIndexes[0].name].sorted())
        #expect(item.removedCompoundIndexes == [old.recordTypes["Item"]!.compoundIndexes[0].name])
        #expect(IndexBuildChange.changes(from: new, to: new).isEmpty)
    }

    @Test("a build runs in the schema change up to the policy's limit, in the background beyond it, not at all without records")
    func indexBuildTiming() {
        #expect(IndexBuildChange.Timing(recordCount: 0) == .nothingToIndex)
        #expect(IndexBuildChange.Timing(recordCount: 1) == .inTheSchemaChange)
        #expect(IndexBuildChange.Timing(recordCount: StorePolicy.synchronousIndexBuildLimit) == .inTheSchemaChange)
        #expect(IndexBuildChange.Timing(recordCount: StorePolicy.synchronousIndexBuildLimit + 1) == .inTheBackground)
        let keys: Set<String> = [
            IndexBuildKey.make(containerID: "c", environment: "development", recordType: "Item", field: "cat"),
            IndexBuildKey.make(containerID: "c", environment: "production", recordType: "Item", field: "n"),
            IndexBuildKey.make(containerID: "d", environment: "development", recordType: "Item", field: "n"),
        ]
        #expect(IndexBuildKey.beingBuilt(among: keys, containerID: "c", environment: .development) == ["Item.cat"])
    }

    @Test("changes/database: zones changed after the token, oldest first, a re-created zone once at its latest state, in pages")
    func databaseFeed() throws {
        let zones = [
            ChangeFeeds.ZoneState(name: "A", deleted: false, lastChange: 5),
            ChangeFeeds.ZoneState(name: "B", deleted: true, lastChange: 3),
            ChangeFeeds.ZoneState(name: "B", deleted: false, lastChange: 9),
            ChangeFeeds.ZoneState(name: "C", deleted: false, lastChange: 1),
        ]
        let all = ChangeFeeds.databaseChanges(zones, in: Self.privateDatabase, since: 1, limit: 10)
        #expect(all.zones.map(\.zoneID.zoneName) == ["A", "B"])
        #expect(all.zones.map(\.deleted) == [false, false])
        #expect(!all.moreComing)
        #expect(try DatabaseSyncToken.read(all.syncToken).sequence == 9)
        let first = ChangeFeeds.databaseChanges(zones, in: Self.privateDatabase, since: 0, limit: 1)
        #expect(first.zones.map(\.zoneID.zoneName) == ["C"] && first.moreComing)
        let none = ChangeFeeds.databaseChanges(zones, in: Self.privateDatabase, since: 9, limit: 10)
        #expect(none.zones.isEmpty && !none.moreComing)
        #expect(try DatabaseSyncToken.read(none.syncToken).sequence == 9)
    }

    @Test("changes/zone: a token starts its own zone's feed only; a page skips other types but moves the token, and says when more come")
    func zoneFeed() throws {
        #expect(try ChangeFeeds.start(after: nil, inZone: 7) == 0)
        #expect(try ChangeFeeds.start(after: ZoneSyncToken(zone: 0, sequence: 0), inZone: 7) == 0)
        #expect(try ChangeFeeds.start(after: ZoneSyncToken(zone: 7, sequence: 42), inZone: 7) == 42)
        #expect(throws: StorageError.self) { try ChangeFeeds.start(after: ZoneSyncToken(zone: 6, sequence: 42), inZone: 7) }

        let zone = Self.privateDatabase.zone("Notes")
        let rows: [(recordType: String, position: Int64)] = [("Note", 11), ("Tag", 12), ("Note", 13), ("Note", 14)]
        /// The rows a page takes, and where it ends.
        func page(of rows: ArraySlice<(recordType: String, position: Int64)>, query: ZoneChangesQuery) -> (taken: [Int], page: ChangeFeeds.Page) {
            var builder = ChangeFeeds.PageBuilder(since: 10, query: query)
            var taken: [Int] = []
            reading: for (index, row) in rows.enumerated() {
                switch builder.next(recordType: row.recordType, position: row.position) {
                case .take: taken.append(index)
                case .skip: continue
                case .stop: break reading
                }
            }
            return (taken, builder.page)
        }
        let notes = page(of: rows[...], query: ZoneChangesQuery(zone: zone, syncToken: nil, limit: 2, recordTypes: ["Note"]))
        #expect(notes.taken == [0, 2] && notes.page == ChangeFeeds.Page(lastPosition: 13, moreComing: true))
        let everything = page(of: rows.prefix(3), query: ZoneChangesQuery(zone: zone, syncToken: nil, limit: 2))
        #expect(everything.taken == [0, 1] && everything.page == ChangeFeeds.Page(lastPosition: 12, moreComing: true))
        let whole = page(of: rows.prefix(2), query: ZoneChangesQuery(zone: zone, syncToken: nil, limit: 2))
        #expect(whole.taken == [0, 1] && whole.page == ChangeFeeds.Page(lastPosition: 12, moreComing: false))
        #expect(ChangeFeeds.scanLimit(for: ZoneChangesQuery(zone: zone, syncToken: nil, limit: 5, recordTypes: ["Note"])) == 100)
    }
}
