import Foundation
import StratusModel
import StratusStore
import StratusTestSupport
import StratusStoreTesting
import Testing

/// A user seen whole, for support: account, sessions, zones and records, subscriptions, recent and sync requests.
@Suite struct UserOverviewAPITests {
    @Test("a user's overview shows their zones with records by type, sessions, subscriptions, recent requests and sync activity")
    func overview() async throws {
        try await TestServer.run(configure: { $0.telemetryFlushInterval = 0.1 }) { client in
            let token = try await client.createContainer()
            let ann = try await client.signUp("ann@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            #expect(try await ann.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Inbox"}}}]}"#).status == 200)
            let saved = try await ann.post("private", "records/modify", #"""
                {"zoneID":{"zoneName":"Inbox"},"operations":[
                  {"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"t":{"value":"a"}}}},
                  {"operationType":"create","record":{"recordName":"n2","recordType":"Note","fields":{"t":{"value":"b"}}}},
                  {"operationType":"create","record":{"recordName":"t1","recordType":"Tag","fields":{"t":{"value":"c"}}}}]}
                """#)
            #expect(saved.status == 200, "\(saved.json)")
            #expect(try await ann.post("private", "records/modify", #"{"zoneID":{"zoneName":"Inbox"},"operations":[{"operationType":"forceDelete","record":{"recordName":"n2"}}]}"#).status == 200)
            let subscribed = try await ann.post("private", "subscriptions/modify", #"""
                {"operations":[{"operationType":"create","subscription":{"subscriptionID":"inbox","subscriptionType":"zone","zoneID":{"zoneName":"Inbox"}}}]}
                """#)
            #expect(subscribed.status == 200, "\(subscribed.json)")
            #expect(try await ann.post("private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Inbox"}}]}"#).status == 200)
            _ = try await bob.post("private", "changes/database", "{}")

            // Requests reach the log within a flush: wait for ann's sync request.
            var reply = try await client.send(.get, "/admin/1/\(TestServer.container)/development/users/\(ann.userRecordName)/overview", headers: client.admin)
            try await Polling.until("ann's sync request reaches the log", within: 60, every: .milliseconds(100)) {
                reply = try await client.send(.get, "/admin/1/\(TestServer.container)/development/users/\(ann.userRecordName)/overview", headers: client.admin)
                return reply["syncRequests"]?.arrayValue?.isEmpty == false
            } describe: {
                "\(reply.json)"
            }
            #expect(reply.status == 200, "\(reply.json)")
            let account = reply["account"]?.objectValue ?? [:]
            #expect(account["emailAddress"] == .string("ann@example.com") && account["privateRecords"]?.integerValue == 2, "\(account)")
            let zones = reply["zones"]?.arrayValue?.compactMap(\.objectValue) ?? []
            let inbox = zones.first { $0["zoneName"] == .string("Inbox") }
            #expect(inbox?["records"]?.integerValue == 2, "\(zones)")
            #expect(inbox?["recordTypes"] == .object(["Note": .integer(1), "Tag": .integer(1)]), "the deleted note is not counted: \(zones)")
            #expect((inbox?["lastChange"]?.integerValue ?? 0) > 0)
            #expect(reply["sessions"]?.arrayValue?.count == 1, "\(reply.json)")
            let subscriptions = reply["subscriptions"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(subscriptions.count == 1 && subscriptions.first?["database"] == .string("private"), "\(subscriptions)")
            let recent = reply["recentRequests"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(recent.contains { $0["operation"] == .string("private/records/modify") }, "\(recent)")
            #expect(recent.allSatisfy { $0["user"] == .string(ann.userRecordName) }, "only ann's requests: \(recent)")
            let sync = reply["syncRequests"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(sync.map { $0["operation"] } == [.string("private/changes/zone")], "\(sync)")

            let missing = try await client.send(.get, "/admin/1/\(TestServer.container)/development/users/_nobody/overview", headers: client.admin)
            #expect(missing.status == 404 && missing.errorCode == "NOT_FOUND")
        }
    }
}
