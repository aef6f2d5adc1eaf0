import Foundation
import StratusModel
import Testing

@Suite struct SubscriptionsAPITests {
    @Test("subscriptions are created, listed, looked up, updated and deleted, per user")
    func lifecycle() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Message","fields":{"channel":{"value":"general"},"text":{"value":"hi"}}}}]}"#)
            let created = try await alice.post("public", "subscriptions/modify", #"""
                {"operations":[{"operationType":"create","subscription":{"subscriptionID":"general","subscriptionType":"query",
                  "query":{"recordType":"Message","filterBy":[{"comparator":"EQUALS","fieldName":"channel","fieldValue":{"value":"general"}}]},
                  "firesOn":["update","create"],"notificationInfo":{"alertBody":"New message","additionalFields":["text"],"shouldSendContentAvailable":true}}},
                 {"operationType":"create","subscription":{"subscriptionType":"query","query":{"recordType":"Message"}}}]}
                """#)
            #expect(created.status == 200)
            guard case .array(let saved)? = created["subscriptions"] else { Issue.record("\(created.json)"); return }
            #expect(saved.count == 2)
            let first = try #require(saved.first?.objectValue)
            #expect(first["subscriptionID"] == .string("general"))
            #expect(first["firesOn"] == .array([.string("create"), .string("update")]))
            #expect(first["firesOnce"] == .bool(false))
            #expect(first["zoneWide"] == .bool(true))
            #expect(first["notificationInfo"]?.objectValue?["alertBody"] == .string("New message"))
            #expect(saved[1].objectValue?["subscriptionID"] != nil)
            #expect(saved[1].objectValue?["firesOn"] == .array([.string("create"), .string("update"), .string("delete")]))

            let listed = try await alice.post("public", "subscriptions/list", "{}")
            guard case .array(let all)? = listed["subscriptions"] else { Issue.record("\(listed.json)"); return }
            #expect(all.count == 2)
            let bobs = try await bob.post("public", "subscriptions/list", "{}")
            #expect(bobs["subscriptions"] == .array([]))

            let updated = try await alice.post("public", "subscriptions/modify", #"{"operations":[{"operationType":"update","subscription":{"subscriptionID":"general","subscriptionType":"query","query":{"recordType":"Message"},"firesOn":["delete"],"firesOnce":true}}]}"#)
            guard case .array(let updates)? = updated["subscriptions"] else { Issue.record("\(updated.json)"); return }
            #expect(updates.first?.objectValue?["firesOnce"] == .bool(true))
            let missing = try await bob.post("public", "subscriptions/modify", #"{"operations":[{"operationType":"update","subscription":{"subscriptionID":"general","subscriptionType":"query","query":{"recordType":"Message"}}}]}"#)
            guard case .array(let refused)? = missing["subscriptions"] else { Issue.record("\(missing.json)"); return }
            #expect(refused.first?.objectValue?["serverErrorCode"] == .string("NOT_FOUND"))

            let lookedUp = try await alice.post("public", "subscriptions/lookup", #"{"subscriptions":[{"subscriptionID":"general"},{"subscriptionID":"nope"}]}"#)
            guard case .array(let found)? = lookedUp["subscriptions"] else { Issue.record("\(lookedUp.json)"); return }
            #expect(found.first?.objectValue?["firesOn"] == .array([.string("delete")]))
            #expect(found.last?.objectValue?["serverErrorCode"] == .string("NOT_FOUND"))
            // The IDs as bare strings, as OpenCloudKit sends them, mixed with the object form.
            let bare = try await alice.post("public", "subscriptions/lookup", #"{"subscriptions":["general",{"subscriptionID":"nope"},"nope"]}"#)
            guard case .array(let foundBare)? = bare["subscriptions"] else { Issue.record("\(bare.json)"); return }
            #expect(foundBare.count == 3, "\(bare.json)")
            #expect(foundBare.first?.objectValue?["subscriptionID"] == .string("general"), "\(bare.json)")
            #expect(foundBare.first?.objectValue?["firesOn"] == .array([.string("delete")]), "\(bare.json)")
            #expect(foundBare.dropFirst().allSatisfy { $0.objectValue?["serverErrorCode"] == .string("NOT_FOUND") }, "\(bare.json)")
            let wrongShape = try await alice.post("public", "subscriptions/lookup", #"{"subscriptions":[42]}"#)
            #expect(wrongShape.status == 400 && wrongShape.errorCode == "BAD_REQUEST", "\(wrongShape.json)")

            let deleted = try await alice.post("public", "subscriptions/modify", #"{"operations":[{"operationType":"delete","subscription":{"subscriptionID":"general"}},{"operationType":"delete","subscription":{"subscriptionID":"general"}}]}"#)
            guard case .array(let deletions)? = deleted["subscriptions"] else { Issue.record("\(deleted.json)"); return }
            #expect(deletions.first?.objectValue?["deleted"] == .bool(true))
            #expect(deletions.last?.objectValue?["serverErrorCode"] == .string("NOT_FOUND"))
            let after = try await alice.post("public", "subscriptions/list", "{}")
            guard case .array(let remaining)? = after["subscriptions"] else { return }
            #expect(remaining.count == 1)
        }
    }

    @Test("subscriptions are refused when they cannot be watched")
    func refusals() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            func code(_ database: String, _ subscription: String, user: UserSession? = nil) async throws -> String {
                let reply = try await (user ?? alice).post(database, "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":\#(subscription)}]}"#)
                if let code = reply.errorCode { return code }
                guard case .array(let items)? = reply["subscriptions"], case .string(let code)? = items.first?.objectValue?["serverErrorCode"] else { return "saved" }
                return code
            }
            #expect(try await code("public", #"{"subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}"#) == "BAD_REQUEST")
            #expect(try await code("public", #"{"subscriptionType":"database"}"#) == "BAD_REQUEST")
            #expect(try await code("public", #"{"subscriptionType":"query"}"#) == "BAD_REQUEST")
            #expect(try await code("public", #"{"subscriptionID":"x"}"#) == "BAD_REQUEST")
            #expect(try await code("public", #"{"subscriptionType":"query","query":{"recordType":"Message"},"firesOn":[]}"#) == "BAD_REQUEST")
            #expect(try await code("public", #"{"subscriptionType":"query","query":{"recordType":"Message","filterBy":[{"comparator":"SOUNDS_LIKE","fieldName":"x","fieldValue":{"value":1}}]}}"#) == "BAD_REQUEST")
            #expect(try await code("private", #"{"subscriptionType":"zone","zoneID":{"zoneName":"Missing"}}"#) == "ZONE_NOT_FOUND")
            #expect(try await code("private", #"{"subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}"#) == "saved")
            #expect(try await code("private", #"{"subscriptionType":"database"}"#) == "saved")
            #expect(try await code("public", #"{"subscriptionType":"query","query":{"recordType":"Nothing"}}"#, user: alice.inEnvironment("production")) == "NOT_FOUND")
            let anonymous = try await alice.anonymous.post("public", "subscriptions/list", "{}")
            #expect(anonymous.errorCode == "AUTHENTICATION_REQUIRED")
        }
    }
}
