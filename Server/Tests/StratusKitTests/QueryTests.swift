import Foundation
import StratusKit
import Testing

@Suite struct QueryTests {
    @Test("the filter builder reads like a predicate and runs on the server: equality, ranges, nearness, lists, sorting")
    func filters() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").publicCloudDatabase
            let paris = Location(latitude: 48.8566, longitude: 2.3522)
            let now = Date()
            let samples: [(String, Int, Double, Double, Date, [String])] = [
                ("a", 1, 48.8570, 2.3530, now.addingTimeInterval(-3_600), ["x"]),
                ("b", 0, 48.8600, 2.3600, now.addingTimeInterval(-60), ["y"]),
                ("c", 1, 51.5072, -0.1276, now.addingTimeInterval(-7_200), ["x", "y"]),
                ("d", 1, 48.8580, 2.3500, now.addingTimeInterval(3_600), []),
            ]
            let records = samples.map { name, current, latitude, longitude, published, tags in
                var record = Record(recordType: "Message", recordID: Record.ID(recordName: name))
                record["isCurrent"] = current
                record["location"] = Location(latitude: latitude, longitude: longitude)
                record["publishedAt"] = published
                record["tags"] = tags.isEmpty ? nil : tags
                record["title"] = "Message \(name)"
                return record
            }
            _ = try await database.modifyRecords(saving: records, deleting: [])

            func names(_ filter: Filter, sort: [Query.Sort] = [.ascending(.recordName)]) async throws -> [String] {
                let page = try await database.records(matching: Query(recordType: "Message", filter: filter, sort: sort))
                return page.matchResults.map(\.0.recordName)
            }
            #expect(try await names(.field("isCurrent") == 1) == ["a", "c", "d"])
            #expect(try await names(.field("isCurrent") == 1 && .field("publishedAt") <= Date()) == ["a", "c"])
            #expect(try await names(.field("location").near(paris, within: 5_000) && .field("isCurrent") != 0) == ["a", "d"])
            #expect(try await names(.field("tags").contains("y")) == ["b", "c"])
            #expect(try await names(.field("title").begins(with: "Message")) == ["a", "b", "c", "d"])
            #expect(try await names(.field("isCurrent").isIn([0])) == ["b"])
            #expect(try await names(.all, sort: [.descending("publishedAt")]) == ["d", "b", "a", "c"])
            #expect(try await names(.field("location").near(paris, within: 2_000), sort: [.distance(from: "location", to: paris)]) == ["a", "d", "b"])
        }
    }

    @Test("cursors page through every match once, and allRecords iterates across pages")
    func paging() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let zone = try await database.save(Zone(zoneName: "Many"))
            let records = (0..<230).map { index in
                var record = Record(recordType: "Row", recordID: Record.ID(recordName: String(format: "row-%03d", index), zoneID: zone.zoneID))
                record["index"] = index
                return record
            }
            _ = try await database.modifyRecords(saving: Array(records[..<200]), deleting: [])
            _ = try await database.modifyRecords(saving: Array(records[200...]), deleting: [])
            let query = Query(recordType: "Row", sort: [.ascending("index")])
            var seen: [Int] = []
            var page = try await database.records(matching: query, inZoneWith: zone.zoneID, resultsLimit: 70)
            seen += page.matchResults.compactMap { try? $0.1.get()["index"] as Int? }
            while let cursor = page.queryCursor {
                page = try await database.records(continuingMatchFrom: cursor, resultsLimit: 70)
                seen += page.matchResults.compactMap { try? $0.1.get()["index"] as Int? }
            }
            #expect(seen == Array(0..<230))

            var count = 0
            for try await record in database.allRecords(matching: Query(recordType: "Row", filter: .field("index") >= 100), inZoneWith: zone.zoneID) {
                #expect((record["index"] as Int? ?? 0) >= 100)
                count += 1
            }
            #expect(count == 130)
        }
    }
}
