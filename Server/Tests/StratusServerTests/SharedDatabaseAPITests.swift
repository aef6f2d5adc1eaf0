import Foundation
import StratusModel
import Testing

/// The shared database as a participant syncs it: change feeds, subscriptions and assets.
@Suite struct SharedDatabaseAPITests {
    /// Alice shares a list (root `groceries`, child `milk`) in zone `Lists` with Bob, who accepts.
    private static func sharedList(_ client: TestClient, bobPermission: String = "READ_WRITE") async throws -> (alice: UserSession, bob: UserSession, guid: String) {
        let token = try await client.createContainer()
        let alice = try await client.signUp("alice@example.com", token: token)
        let bob = try await client.signUp("bob@example.com", token: token)
        try await alice.createZone("Lists")
        _ = try await alice.save([
            #"{"recordName":"groceries","recordType":"List","fields":{"title":{"value":"Groceries"}}}"#,
            #"{"recordName":"milk","recordType":"Item","parent":{"recordName":"groceries"},"fields":{"title":{"value":"Milk"}}}"#,
            #"{"recordName":"diary","recordType":"List","fields":{"title":{"value":"Secret"}}}"#,
        ], zone: "Lists")
        let share = try await alice.share("groceries", zone: "Lists", participants: [participant(userRecordName: bob.userRecordName, permission: bobPermission)])
        guard let guid = share["shortGUID"]?.stringValue else { throw TestFailure("\(share)") }
        _ = try await bob.shareResults("accept", [guid])
        return (alice, bob, guid)
    }

    @Test("changes/database on shared lists accepted zones under their owner, and again when their records change")
    func databaseChanges() async throws {
        try await TestServer.run { client in
            let (alice, bob, _) = try await Self.sharedList(client)
            let first = try await bob.post("shared", "changes/database", "{}")
            #expect(first["zones"] == .array([.object(["zoneID": .object(["zoneName": .string("Lists"), "ownerRecordName": .string(alice.userRecordName)])])]))
            guard let token = first["syncToken"]?.stringValue else { throw TestFailure("\(first.json)") }
            let lookup = try await bob.post("shared", "zones/lookup", #"{"zones":[\#(alice.zoneID("Lists")),{"zoneName":"Lists","ownerRecordName":"_someone"}]}"#)
            #expect(lookup["zones"]?.arrayValue?.first?.objectValue?["syncToken"] != nil)
            #expect(lookup["zones"]?.arrayValue?.last?.objectValue?["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
            #expect(try await bob.post("shared", "changes/database", #"{"syncToken":"\#(token)"}"#)["zones"] == .array([]))
            _ = try await alice.save([#"{"recordName":"bread","recordType":"Item","parent":{"recordName":"groceries"},"fields":{}}"#], zone: "Lists")
            let next = try await bob.post("shared", "changes/database", #"{"syncToken":"\#(token)"}"#)
            #expect(next["zones"]?.arrayValue?.count == 1)

            // The zone's own feed, with the owner in its zone IDs and only the shared tree in it.
            let zone = try await bob.post("shared", "changes/zone", #"{"zones":[{"zoneID":\#(alice.zoneID("Lists"))}]}"#)
            let page = try #require(zone["zones"]?.arrayValue?.first?.objectValue)
            #expect(page["zoneID"]?.objectValue?["ownerRecordName"] == .string(alice.userRecordName))
            let names = Set(page["records"]?.arrayValue?.compactMap { $0.objectValue?["recordName"]?.stringValue } ?? [])
            #expect(names == ["groceries", "milk", "bread", "share-1"])
            guard let zoneToken = page["syncToken"]?.stringValue else { throw TestFailure("\(page)") }
            _ = try await alice.save([#"{"recordName":"note","recordType":"Item","parent":{"recordName":"diary"},"fields":{}}"#], zone: "Lists")
            let quiet = try await bob.post("shared", "changes/zone", #"{"zones":[{"zoneID":\#(alice.zoneID("Lists")),"syncToken":"\#(zoneToken)"}]}"#)
            #expect(quiet["zones"]?.arrayValue?.first?.objectValue?["records"] == .array([]))
        }
    }

    @Test("subscriptions in the shared database notify participants of changes to what is shared with them, and stop when they are removed")
    func subscriptions() async throws {
        try await TestServer.run { client in
            let (alice, bob, _) = try await Self.sharedList(client)
            let zone = alice.zoneID("Lists")
            let saved = try await bob.post("shared", "subscriptions/modify", #"""
                {"operations":[
                  {"operationType":"create","subscription":{"subscriptionID":"list","subscriptionType":"zone","zoneID":\#(zone)}},
                  {"operationType":"create","subscription":{"subscriptionID":"items","subscriptionType":"query","query":{"recordType":"Item"},"zoneID":\#(zone),"zoneWide":false,"notificationInfo":{"additionalFields":["title"]}}}]}
                """#)
            #expect(saved["subscriptions"]?.arrayValue?.allSatisfy { $0.objectValue?["serverErrorCode"] == nil } == true)
            let carol = try await client.signUp("carol@example.com", token: alice.apiToken)
            let refused = try await carol.post("shared", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"spy","subscriptionType":"zone","zoneID":\#(zone)}}]}"#)
            #expect(refused["subscriptions"]?.arrayValue?.first?.objectValue?["serverErrorCode"] == .string("ZONE_NOT_FOUND"))

            _ = try await alice.save([#"{"recordName":"eggs","recordType":"Item","parent":{"recordName":"groceries"},"fields":{"title":{"value":"Eggs"}}}"#], zone: "Lists")
            _ = try await alice.save([#"{"recordName":"note","recordType":"Item","parent":{"recordName":"diary"},"fields":{"title":{"value":"Private"}}}"#], zone: "Lists")
            try await client.recordChangesMatched()
            let delivered = try await client.send(.get, "/notifications/1/\(TestServer.container)/development/changes?\(bob.query)&after=0")
            let payloads = delivered["notifications"]?.arrayValue?.compactMap { $0.objectValue?["payload"]?.objectValue?["ck"]?.objectValue } ?? []
            #expect(payloads.count == 2)
            let query = payloads.compactMap { $0["qry"]?.objectValue }.first
            #expect(query?["dbs"] == .integer(3))
            #expect(query?["rid"] == .string("eggs"))
            #expect(query?["zoid"] == .string(alice.userRecordName))
            #expect(query?["af"]?.objectValue?["title"] == .string("Eggs"))
            #expect(payloads.compactMap { $0["fet"]?.objectValue?["dbs"] }.first == .integer(3))

            // Removed from the share, Bob hears nothing more.
            let current = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"share-1"}]}"#)
            guard let tag = current.records.first?["recordChangeTag"]?.stringValue else { throw TestFailure("\(current.json)") }
            _ = try await alice.save([#"{"recordName":"share-1","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","participants":[]}"#], zone: "Lists", operation: "update")
            _ = try await alice.save([#"{"recordName":"ham","recordType":"Item","parent":{"recordName":"groceries"},"fields":{}}"#], zone: "Lists")
            try await client.recordChangesMatched()
            let after = try await client.send(.get, "/notifications/1/\(TestServer.container)/development/changes?\(bob.query)&after=0")
            let later = after["notifications"]?.arrayValue?.dropFirst(2).compactMap { $0.objectValue?["payload"]?.objectValue?["ck"]?.objectValue } ?? []
            // The removal itself reaches the zone subscription (the share record changed), so that Bob's app syncs and
            // finds the zone gone; the later change does not reach him.
            #expect(later.count == 1)
            #expect(later.first?["fet"] != nil)
        }
    }

    @Test("participants download the assets of shared records, and READ_WRITE participants attach new ones")
    func assets() async throws {
        try await TestServer.run { client in
            let (alice, bob, guid) = try await Self.sharedList(client)
            let photo = AssetTestSupport.png(2_000, seed: 7)
            let file = try await alice.upload(photo, "private", recordType: "List", field: "photo", zone: "Lists")
            _ = try await alice.save([#"{"recordName":"groceries","recordType":"List","fields":{"photo":{"value":\#(file)}}}"#], zone: "Lists", operation: "forceUpdate")
            let zone = alice.zoneID("Lists")

            let read = try await bob.sharedLookup(["groceries"], zoneID: zone)
            guard let url = read.records.first?["fields"]?.objectValue?["photo"]?.objectValue?["value"]?.objectValue?["downloadURL"]?.stringValue else {
                throw TestFailure("\(read.json)")
            }
            let (download, bytes) = try await client.sendBytes(.get, AssetTestSupport.path(of: url))
            #expect(download.status == 200)
            #expect(bytes == photo)

            // Bob uploads into Alice's zone through the shared database and attaches it beneath the root.
            let upload = try await bob.post("shared", "assets/upload", #"{"zoneID":\#(zone),"tokens":[{"recordType":"Item","fieldName":"photo"}]}"#)
            guard let uploadURL = upload["tokens"]?.arrayValue?.first?.objectValue?["url"]?.stringValue else { throw TestFailure("\(upload.json)") }
            let (uploaded, _) = try await client.sendBytes(.post, AssetTestSupport.path(of: uploadURL), AssetTestSupport.png(500, seed: 9))
            guard let single = uploaded["singleFile"] else { throw TestFailure("\(uploaded.json)") }
            var writer = JSONWriter()
            single.write(to: &writer)
            let attached = try await bob.sharedSave([#"{"recordName":"pic","recordType":"Item","parent":{"recordName":"groceries"},"fields":{"photo":{"value":\#(writer.text)}}}"#], zoneID: zone)
            #expect(attached.recordErrors == [nil])
            let own = try await alice.downloadPath(of: "pic", field: "photo", "private", zone: "Lists")
            #expect(try await client.sendBytes(.get, own).1 == AssetTestSupport.png(500, seed: 9))

            // A READ_ONLY participant gets no upload URLs.
            let reader = try await client.signUp("reader@example.com", token: alice.apiToken)
            let current = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"share-1"}]}"#)
            guard let tag = current.records.first?["recordChangeTag"]?.stringValue, let bobID = current.records.first?["participants"]?.arrayValue?.last?.objectValue?["participantId"]?.stringValue else {
                throw TestFailure("\(current.json)")
            }
            _ = try await alice.save([
                #"{"recordName":"share-1","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","participants":[{"participantId":"\#(bobID)","permission":"READ_WRITE"},\#(participant(userRecordName: reader.userRecordName))]}"#,
            ], zone: "Lists", operation: "update")
            _ = try await reader.shareResults("accept", [guid])
            let denied = try await reader.post("shared", "assets/upload", #"{"zoneID":\#(zone),"tokens":[{"recordType":"Item","fieldName":"photo"}]}"#)
            #expect(denied.errorCode == "ACCESS_DENIED")
        }
    }
}
