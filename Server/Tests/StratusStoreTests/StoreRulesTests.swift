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
}
