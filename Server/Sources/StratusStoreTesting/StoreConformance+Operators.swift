import Foundation
import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    /// What the console and the admin API read and change across users.
    static var operatorCases: [ConformanceCase] {
        [
            ConformanceCase("records of a type, and those holding a field, are counted across databases and only live ones") { store in
                let publicZone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                let privateZone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, publicZone, Fixture.create("a", type: "Message", ["title": Fixture.field(.string("x"))]))
                _ = try await Fixture.save(store, publicZone, Fixture.create("b", type: "Message"))
                _ = try await Fixture.save(store, privateZone, Fixture.create("c", type: "Message", ["title": Fixture.field(.string("y"))]))
                _ = try await Fixture.save(store, privateZone, Fixture.create("d", type: "Message", ["title": Fixture.field(.string("z"))]))
                _ = try await Fixture.modify(store, privateZone, [RecordOperation(type: .forceDelete, recordName: "d")])
                let count = { (field: String?) in
                    try await store.recordCount(ofType: "Message", holding: field, containerID: Fixture.container, environment: .development)
                }
                #expect(try await count(nil) == 3)
                #expect(try await count("title") == 2)
                #expect(try await count("other") == 0)
                #expect(try await store.recordCount(ofType: "Message", holding: nil, containerID: Fixture.container, environment: .production) == 0)
            },
            ConformanceCase("an API token is replaced and the old one forgotten") { store in
                try await store.createContainer(ContainerInfo(id: "iCloud.a", apiToken: "t1", createdAt: 1))
                try await store.setAPIToken("t2", containerID: "iCloud.a")
                #expect(try await store.container(id: "iCloud.a")?.apiToken == "t2")
                await #expect {
                    try await store.setAPIToken("t3", containerID: "iCloud.missing")
                } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }
            },
            ConformanceCase("accounts are listed by email, searched in any case, and paged") { store in
                let people = [("carol@example.com", "Carol", "_c0"), ("alice@example.com", "Alice", "_a0"), ("bob@example.com", "Bob", "_b0"),
                              ("dave_100%@example.com", "Dave", "_d0")]
                for (email, name, user) in people {
                    try await store.createAccount(Account(
                        containerID: Fixture.container, userRecordName: user, emailAddress: email, passwordHash: "h",
                        givenName: name, familyName: "Smith", createdAt: Fixture.now
                    ))
                }
                let all = try await store.accounts(containerID: Fixture.container, matching: nil, offset: 0, limit: 10)
                #expect(all.map(\.emailAddress) == ["alice@example.com", "bob@example.com", "carol@example.com", "dave_100%@example.com"])
                #expect(try await store.accounts(containerID: Fixture.container, matching: nil, offset: 1, limit: 2).map(\.userRecordName) == ["_b0", "_c0"])
                #expect(try await store.accounts(containerID: Fixture.container, matching: "CAROL", offset: 0, limit: 10).map(\.userRecordName) == ["_c0"])
                #expect(try await store.accounts(containerID: Fixture.container, matching: "smith", offset: 0, limit: 10).count == 4)
                #expect(try await store.accounts(containerID: Fixture.container, matching: "_1", offset: 0, limit: 10).map(\.userRecordName) == ["_d0"])
                #expect(try await store.accounts(containerID: Fixture.container, matching: "0%", offset: 0, limit: 10).map(\.userRecordName) == ["_d0"])
                #expect(try await store.accounts(containerID: "iCloud.other", matching: nil, offset: 0, limit: 10).isEmpty)
            },
            ConformanceCase("record counts cover public records a user created and their private database") { store in
                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: Fixture.alice, emailAddress: "a@example.com", passwordHash: "h",
                    givenName: nil, familyName: nil, createdAt: Fixture.now
                ))
                let publicZone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                try await Fixture.modify(store, publicZone, [Fixture.create("p1"), Fixture.create("p2")])
                try await Fixture.modify(store, publicZone, [Fixture.create("p3")], as: Fixture.bob)
                try await Fixture.modify(store, publicZone, [RecordOperation(type: .forceDelete, recordName: "p2")])
                let notes = try await Fixture.createZone(store, "Notes")
                try await Fixture.modify(store, notes, [Fixture.create("n1"), Fixture.create("n2"), Fixture.create("n3")])
                let counts = try await store.recordCounts(of: [Fixture.alice, Fixture.bob, "_nobody"], containerID: Fixture.container, environment: .development)
                #expect(counts[Fixture.alice] == UserRecordCounts(publicRecords: 1, privateRecords: 3))
                #expect(counts[Fixture.bob] == UserRecordCounts(publicRecords: 1, privateRecords: 0))
                #expect(counts["_nobody"] == UserRecordCounts())
                let production = try await store.recordCounts(of: [Fixture.alice], containerID: Fixture.container, environment: .production)
                #expect(production[Fixture.alice] == UserRecordCounts())
            },
            ConformanceCase("subscriptions are listed per database across users") { store in
                let publicDB = Fixture.publicDB()
                try await store.saveSubscription(StoredSubscription(id: "s1", database: publicDB, owner: Fixture.alice, body: "{}", createdAt: 1), mustExist: false)
                try await store.saveSubscription(StoredSubscription(id: "s2", database: publicDB, owner: Fixture.bob, body: "{}", createdAt: 2), mustExist: false)
                try await store.saveSubscription(
                    StoredSubscription(id: "s3", database: Fixture.privateDB(), owner: Fixture.alice, body: "{}", createdAt: 3), mustExist: false
                )
                try await store.saveSubscription(
                    StoredSubscription(id: "s4", database: Fixture.publicDB(.production), owner: Fixture.alice, body: "{}", createdAt: 4), mustExist: false
                )
                let listed = try await store.subscriptions(containerID: Fixture.container, environment: .development, scope: .public)
                #expect(listed.map(\.id) == ["s1", "s2"])
                #expect(listed.map(\.owner) == [Fixture.alice, Fixture.bob])
                #expect(try await store.subscriptions(containerID: Fixture.container, environment: .development, scope: .private).map(\.id) == ["s3"])
            },
        ]
    }
}
