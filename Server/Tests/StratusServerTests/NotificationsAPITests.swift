import Foundation
import StratusModel
import Testing

@Suite struct NotificationsAPITests {
    /// Creates a courier token for a user and answers the courier path.
    /// The next notification of a courier queue, polling again while the long poll answers empty: subscriptions
    /// are matched just after the save commits, so a short wait may end first.
    static func next(_ client: TestClient, _ courier: String) async throws -> Reply {
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            let reply = try await client.send(.get, courier)
            if reply.json != .null || ContinuousClock.now > deadline { return reply }
        }
    }

    static func courier(_ user: UserSession) async throws -> String {
        let reply = try await user.post("public", "tokens/create", #"{"apnsEnvironment":"development"}"#)
        guard case .string(let url)? = reply["webcourierURL"], case .string(let token)? = reply["apnsToken"] else {
            throw TestFailure("tokens/create failed: \(reply.json)")
        }
        let registered = try await user.post("public", "tokens/register", #"{"apnsEnvironment":"development","apnsToken":"\#(token)"}"#)
        #expect(registered.status == 200)
        return AssetTestSupport.path(of: url)
    }

    static func post(_ user: UserSession, _ name: String, channel: String, text: String, operation: String = "create", tag: String? = nil) async throws -> [String: JSONValue] {
        let changeTag = tag.map { #","recordChangeTag":"\#($0)""# } ?? ""
        let reply = try await user.post("public", "records/modify", #"{"operations":[{"operationType":"\#(operation)","record":{"recordName":"\#(name)","recordType":"Message"\#(changeTag),"fields":{"channel":{"value":"\#(channel)"},"text":{"value":"\#(text)"}}}}]}"#)
        return reply.records.first ?? [:]
    }

    @Test("the chat case: A's courier gets B's messages of A's channel, edits and deletions, with the text in af")
    func chat() async throws {
        try await TestServer.run(configure: { $0.courierWait = 0.3 }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            // The type exists before Alice subscribes, as it would in an app.
            _ = try await Self.post(bob, "seed", channel: "random", text: "first")
            let subscribed = try await alice.post("public", "subscriptions/modify", #"""
                {"operations":[{"operationType":"create","subscription":{"subscriptionID":"general-messages","subscriptionType":"query",
                  "query":{"recordType":"Message","filterBy":[{"comparator":"EQUALS","fieldName":"channel","fieldValue":{"value":"general"}}]},
                  "firesOn":["create","update","delete"],
                  "notificationInfo":{"alertLocalizationKey":"NEW_MESSAGE","alertLocalizationArgs":["text"],"additionalFields":["text"],"soundName":"ping","shouldBadge":true}}}]}
                """#)
            #expect(subscribed.status == 200)
            let courier = try await Self.courier(alice)
            let empty = try await client.send(.get, courier)
            #expect(empty.status == 200 && empty.json == .null)

            let posted = try await Self.post(bob, "m1", channel: "general", text: "hello")
            _ = try await Self.post(bob, "m2", channel: "random", text: "elsewhere")
            let created = try await Self.next(client, courier)
            let ck = try #require(created["ck"]?.objectValue)
            let query = try #require(ck["qry"]?.objectValue)
            #expect(query["sid"] == .string("general-messages"))
            #expect(query["rid"] == .string("m1"))
            #expect(query["fo"] == .integer(1))
            #expect(query["dbs"] == .integer(1))
            #expect(query["zid"] == .string("_defaultZone"))
            #expect(query["af"]?.objectValue?["text"] == .string("hello"))
            #expect(ck["cid"] == .string(TestServer.container))
            let aps = try #require(created["aps"]?.objectValue)
            #expect(aps["alert"]?.objectValue?["loc-key"] == .string("NEW_MESSAGE"))
            #expect(aps["alert"]?.objectValue?["loc-args"] == .array([.string("hello")]))
            #expect(aps["sound"] == .string("ping") && aps["badge"] == .integer(1))

            guard case .string(let tag)? = posted["recordChangeTag"] else { Issue.record("no tag"); return }
            let edited = try await Self.post(bob, "m1", channel: "general", text: "hello, edited", operation: "update", tag: tag)
            let update = try await Self.next(client, courier)
            #expect(update["ck"]?.objectValue?["qry"]?.objectValue?["fo"] == .integer(2))
            #expect(update["ck"]?.objectValue?["qry"]?.objectValue?["af"]?.objectValue?["text"] == .string("hello, edited"))
            guard case .string(let editedTag)? = edited["recordChangeTag"] else { Issue.record("no tag"); return }
            _ = try await bob.post("public", "records/modify", #"{"operations":[{"operationType":"delete","record":{"recordName":"m1","recordChangeTag":"\#(editedTag)"}}]}"#)
            let deletion = try await Self.next(client, courier)
            #expect(deletion["ck"]?.objectValue?["qry"]?.objectValue?["fo"] == .integer(3))
            #expect(deletion["ck"]?.objectValue?["qry"]?.objectValue?["rid"] == .string("m1"))
            // Nothing about the other channel.
            let none = try await client.send(.get, courier)
            #expect(none.json == .null)

            // What was delivered can be fetched again.
            let missed = try await client.send(.get, "/notifications/1/\(TestServer.container)/development/changes?\(alice.query)&after=0")
            guard case .array(let all)? = missed["notifications"] else { Issue.record("\(missed.json)"); return }
            #expect(all.count == 3)
        }
    }

    @Test("tokens/create and tokens/register also answer under /device/1")
    func devicePaths() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let created = try await client.send(.post, "/device/1/\(TestServer.container)/development/tokens/create?\(alice.query)", body: #"{"apnsEnvironment":"production"}"#)
            #expect(created["apnsEnvironment"] == .string("production"))
            guard case .string(let apnsToken)? = created["apnsToken"] else { Issue.record("\(created.json)"); return }
            let registered = try await client.send(.post, "/device/1/\(TestServer.container)/development/tokens/register?\(alice.query)", body: #"{"apnsToken":"\#(apnsToken)"}"#)
            #expect(registered.status == 200)
            #expect(registered["apnsEnvironment"] == .string("production"))
            let anonymous = try await client.send(.post, "/device/1/\(TestServer.container)/development/tokens/create?ckAPIToken=\(token)", body: "{}")
            #expect(anonymous.errorCode == "AUTHENTICATION_REQUIRED")
        }
    }

    @Test("a long poll waiting when a message is saved answers it at once")
    func longPollWakesUp() async throws {
        // The wait is long, so an answer carrying the message well before it ends (not an empty "poll again")
        // can only come from the save waking the poll. The time is measured from the acknowledged save, with
        // room for the other suites sharing this process's threads; `stratus bench` measures the latency.
        try await TestServer.run(configure: { $0.courierWait = 60 }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await alice.post("public", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"query","query":{"recordType":"Message"}}}]}"#)
            let courier = try await Self.courier(alice)
            async let answer = client.send(.get, courier)
            try await client.waitForNotificationListeners()
            _ = try await Self.post(bob, "m1", channel: "general", text: "hi")
            let saved = ContinuousClock.now
            let reply = try await answer
            #expect(reply["ck"]?.objectValue?["qry"]?.objectValue?["rid"] == .string("m1"))
            #expect(ContinuousClock.now - saved < .seconds(20))
        }
    }

    @Test("subscriptions fire once when asked, stop when deleted, and never for records their owner may not read")
    func firesOnceDeletionAndPermissions() async throws {
        try await TestServer.run(configure: { $0.courierWait = 0.2 }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: """
                DEFINE SCHEMA
                RECORD TYPE Message (channel STRING QUERYABLE, text STRING, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world");
                RECORD TYPE Diary (text STRING, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_creator");
                """, headers: client.admin)
            _ = try await alice.post("public", "subscriptions/modify", #"""
                {"operations":[{"operationType":"create","subscription":{"subscriptionID":"once","subscriptionType":"query","query":{"recordType":"Message"},"firesOnce":true}},
                 {"operationType":"create","subscription":{"subscriptionID":"diaries","subscriptionType":"query","query":{"recordType":"Diary"}}},
                 {"operationType":"create","subscription":{"subscriptionID":"gone","subscriptionType":"query","query":{"recordType":"Message"}}}]}
                """#)
            _ = try await alice.post("public", "subscriptions/modify", #"{"operations":[{"operationType":"delete","subscription":{"subscriptionID":"gone"}}]}"#)
            let courier = try await Self.courier(alice)
            _ = try await Self.post(bob, "m1", channel: "general", text: "one")
            _ = try await Self.post(bob, "m2", channel: "general", text: "two")
            _ = try await bob.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"d1","recordType":"Diary","fields":{"text":{"value":"secret"}}}}]}"#)
            let first = try await Self.next(client, courier)
            #expect(first["ck"]?.objectValue?["qry"]?.objectValue?["sid"] == .string("once"))
            #expect(first["ck"]?.objectValue?["qry"]?.objectValue?["rid"] == .string("m1"))
            let next = try await client.send(.get, courier)
            #expect(next.json == .null, "expected nothing more, got \(next.json)")
            let listed = try await alice.post("public", "subscriptions/list", "{}")
            guard case .array(let remaining)? = listed["subscriptions"] else { return }
            #expect(remaining.compactMap { $0.objectValue?["subscriptionID"] } == [.string("diaries")])
        }
    }

    @Test("zone and database subscriptions of a private database fire on any change there")
    func zoneAndDatabaseSubscriptions() async throws {
        try await TestServer.run(configure: { $0.courierWait = 0.2 }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}},{"operationType":"create","zone":{"zoneID":{"zoneName":"Other"}}}]}"#)
            _ = try await alice.post("private", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}},{"operationType":"create","subscription":{"subscriptionID":"everything","subscriptionType":"database"}}]}"#)
            let courier = try await Self.courier(alice)
            _ = try await alice.post("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}}]}"#)
            _ = try await alice.post("private", "records/modify", #"{"zoneID":{"zoneName":"Other"},"operations":[{"operationType":"create","record":{"recordName":"o1","recordType":"Note"}}]}"#)
            var kinds: [String] = []
            for _ in 0..<3 {
                let reply = try await Self.next(client, courier)
                guard let ck = reply["ck"]?.objectValue else { break }
                if let fetch = ck["fet"]?.objectValue {
                    kinds.append("zone:\(fetch["zid"].map { "\($0)" } ?? "")")
                    #expect(fetch["dbs"] == .integer(2))
                } else if ck["met"] != nil {
                    kinds.append("database")
                }
            }
            #expect(kinds.count == 3)
            #expect(try await client.send(.get, courier).json == .null)
            #expect(kinds.filter { $0 == "database" }.count == 2)
            #expect(kinds.contains { $0.hasPrefix("zone:") && $0.contains("Notes") })
        }
    }
}

@Suite struct NotificationExpiryTests {
    @Test("courier queues and their notifications are forgotten after their time-to-live")
    func queuesExpire() async throws {
        try await TestServer.run(configure: { $0.courierWait = 0.1; $0.notificationQueueLifetime = 60 }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("public", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"query","query":{"recordType":"Message"}}}]}"#)
            let courier = try await NotificationsAPITests.courier(alice)
            _ = try await NotificationsAPITests.post(alice, "m1", channel: "general", text: "hi")
            try await client.recordChangesMatched()
            let changes = "/notifications/1/\(TestServer.container)/development/changes?\(alice.query)&after=0"
            #expect(try await client.send(.get, changes)["notifications"] != .array([]))
            try await client.parts.store.removeExpiredNotifications(
                now: Int64(Date().addingTimeInterval(120).timeIntervalSince1970 * 1000),
                createdBefore: Int64(Date().addingTimeInterval(60).timeIntervalSince1970 * 1000)
            )
            let expired = try await client.send(.get, courier)
            #expect(expired.status == 404)
            #expect(try await client.send(.get, changes)["notifications"] == .array([]))
        }
    }
}
