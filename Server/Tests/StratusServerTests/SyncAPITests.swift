import Foundation
import StratusModel
import Testing

@Suite struct SyncAPITests {
    @Test("zones are created, listed, looked up and deleted")
    func zones() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let created = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            #expect(created.status == 200)
            let list = try await alice.get("private", "zones/list")
            guard case .array(let zones)? = list["zones"] else { Issue.record("no zones"); return }
            #expect(zones.count == 2)
            let lookup = try await alice.post("private", "zones/lookup", #"{"zones":[{"zoneName":"Notes"},{"zoneName":"Missing"}]}"#)
            guard case .array(let found)? = lookup["zones"] else { Issue.record("no zones"); return }
            #expect(found[0].objectValue?["syncToken"] != nil)
            #expect(found[1].objectValue?["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
            let deleted = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            guard case .array(let results)? = deleted["zones"] else { Issue.record("no zones"); return }
            #expect(results.first?.objectValue?["deleted"] == .bool(true))
            let again = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            guard case .array(let failed)? = again["zones"] else { Issue.record("no zones"); return }
            #expect(failed.first?.objectValue?["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
            let shared = try await alice.get("shared", "zones/list")
            #expect(shared.status == 200)
        }
    }

    @Test("changes/database and changes/zone report every change once, deletions as deleted: true")
    func sync() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let start = try await alice.post("private", "changes/database", "{}")
            guard case .string(let databaseToken)? = start["syncToken"] else { Issue.record("no token"); return }
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            let operations = (0..<5).map { #"{"operationType":"create","record":{"recordName":"n\#($0)","recordType":"Note"}}"# }
            _ = try await alice.post("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[\#(operations.joined(separator: ","))]}"#)
            let changedZones = try await alice.post("private", "changes/database", #"{"syncToken":"\#(databaseToken)"}"#)
            guard case .array(let zones)? = changedZones["zones"] else { Issue.record("no zones"); return }
            #expect(zones.compactMap { $0.objectValue?["zoneID"]?.objectValue?["zoneName"] } == [.string("Notes")])

            var names: [JSONValue] = []
            var syncToken: String?
            var more = true
            while more {
                let tokenJSON = syncToken.map { #","syncToken":"\#($0)""# } ?? ""
                let page = try await alice.post("private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"}\#(tokenJSON),"resultsLimit":2}]}"#)
                guard case .array(let items)? = page["zones"], let zone = items.first?.objectValue,
                    case .string(let next)? = zone["syncToken"], case .bool(let moreComing)? = zone["moreComing"],
                    case .array(let records)? = zone["records"]
                else { Issue.record("bad page \(page.json)"); return }
                names += records.compactMap { $0.objectValue?["recordName"] }
                syncToken = next
                more = moreComing
            }
            #expect(names == (0..<5).map { .string("n\($0)") })
            _ = try await alice.post("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceDelete","record":{"recordName":"n2"}}]}"#)
            let after = try await alice.post("private", "records/changes", #"{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(syncToken!)"}"#)
            #expect(after.records.count == 1)
            #expect(after.records.first?["recordName"] == .string("n2"))
            #expect(after.records.first?["deleted"] == .bool(true))
            let legacy = try await alice.post("private", "zones/changes", "{}")
            #expect(legacy["metaSyncToken"] != nil)
            let missing = try await alice.post("private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Nowhere"}}]}"#)
            guard case .array(let missingZones)? = missing["zones"] else { Issue.record("no zones"); return }
            #expect(missingZones.first?.objectValue?["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
        }
    }
}
