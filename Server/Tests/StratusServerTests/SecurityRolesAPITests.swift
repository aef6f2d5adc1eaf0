import Foundation
import StratusModel
import Testing

@Suite struct SecurityRolesAPITests {
    func assign(_ roles: [String], to user: String, _ client: TestClient, environment: String = "development") async throws -> Reply {
        let body = "{\"roles\":[\(roles.map { "\"\($0)\"" }.joined(separator: ","))]}"
        return try await client.send(.put, "/admin/1/\(TestServer.container)/\(environment)/users/\(user)/roles", body: body, headers: client.admin)
    }

    @Test("AppFeatures: anonymous users read it, signed-in users cannot create or edit it, an Admin can")
    func appFeatures() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: SchemaAPITests.schemaText, headers: client.admin)
            let admin = try await client.signUp("admin@example.com", token: token)
            let user = try await client.signUp("user@example.com", token: token)
            let assigned = try await assign(["Admin"], to: admin.userRecordName, client)
            #expect(assigned.status == 200 && assigned["roles"] == .array([.string("Admin")]))

            let create = #"{"operations":[{"operationType":"create","record":{"recordName":"chat","recordType":"AppFeatures","fields":{"name":{"value":"chat"},"enabled":{"value":1}}}}]}"#
            let refused = try await user.post("public", "records/modify", create)
            #expect(refused.records.first?["serverErrorCode"] == .string("ACCESS_DENIED"))
            #expect(refused.records.first?["reason"] == .string("CREATE operation not permitted on AppFeatures"))

            let created = try await admin.post("public", "records/modify", create)
            guard case .string(let tag)? = created.records.first?["recordChangeTag"] else { Issue.record("admin could not create: \(created.json)"); return }

            let edit = #"{"operations":[{"operationType":"update","record":{"recordName":"chat","recordChangeTag":"\#(tag)","fields":{"enabled":{"value":0}}}}]}"#
            let userEdit = try await user.post("public", "records/modify", edit)
            #expect(userEdit.records.first?["reason"] == .string("WRITE operation not permitted on AppFeatures"))
            let userDelete = try await user.post("public", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"chat"}}]}"#)
            #expect(userDelete.records.first?["serverErrorCode"] == .string("ACCESS_DENIED"))

            let anonymous = try await user.anonymous.post("public", "records/query", #"{"query":{"recordType":"AppFeatures"}}"#)
            #expect(anonymous.status == 200 && anonymous.records.map { $0["recordName"] } == [.string("chat")])
            let lookup = try await user.anonymous.post("public", "records/lookup", #"{"records":[{"recordName":"chat"}]}"#)
            #expect(lookup.records.first?["recordChangeTag"] == .string(tag))

            let adminEdit = try await admin.post("public", "records/modify", edit)
            #expect(adminEdit.records.first?["serverErrorCode"] == nil)
            // Taking the role away takes the right away at once on this server.
            _ = try await assign([], to: admin.userRecordName, client)
            let afterRevoke = try await admin.post("public", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"chat"}}]}"#)
            #expect(afterRevoke.records.first?["serverErrorCode"] == .string("ACCESS_DENIED"))
        }
    }

    @Test("READ granted to _creator alone: each user queries, looks up and syncs only their own records")
    func creatorOnlyReads() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let schema = #"DEFINE SCHEMA RECORD TYPE Diary (text STRING, GRANT CREATE TO "_icloud", GRANT READ, WRITE TO "_creator");"#
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: schema, headers: client.admin)
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"a1","recordType":"Diary","fields":{"text":{"value":"mine"}}}}]}"#)
            _ = try await bob.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"b1","recordType":"Diary","fields":{"text":{"value":"his"}}}}]}"#)
            let aliceQuery = try await alice.post("public", "records/query", #"{"query":{"recordType":"Diary"}}"#)
            #expect(aliceQuery.records.map { $0["recordName"] } == [.string("a1")])
            let bobLookup = try await bob.post("public", "records/lookup", #"{"records":[{"recordName":"a1"},{"recordName":"b1"}]}"#)
            #expect(bobLookup.records.map { $0["serverErrorCode"] } == [.string("ACCESS_DENIED"), nil])
            let anonymous = try await alice.anonymous.post("public", "records/query", #"{"query":{"recordType":"Diary"}}"#)
            #expect(anonymous.status == 403 && anonymous.errorCode == "ACCESS_DENIED")
            let changes = try await bob.post("public", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"_defaultZone"}}]}"#)
            guard case .array(let zones)? = changes["zones"], case .array(let records)? = zones.first?.objectValue?["records"] else {
                Issue.record("no changes: \(changes.json)"); return
            }
            let names = records.compactMap { $0.objectValue?["recordName"] }
            #expect(names.contains(.string("b1")) && !names.contains(.string("a1")))
        }
    }

    @Test("roles are assigned only when defined, never built-in ones, and only to existing users")
    func assignmentRefusals() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: SchemaAPITests.schemaText, headers: client.admin)
            let user = try await client.signUp("user@example.com", token: token)
            let undefined = try await assign(["Editor"], to: user.userRecordName, client)
            #expect(undefined.status == 400 && undefined.errorCode == "BAD_REQUEST")
            let builtIn = try await assign(["_world"], to: user.userRecordName, client)
            #expect(builtIn.status == 400)
            let production = try await assign(["Admin"], to: user.userRecordName, client, environment: "production")
            #expect(production.status == 400)
            let nobody = try await assign(["Admin"], to: "_00000000000000000000000000000000", client)
            #expect(nobody.status == 404 && nobody.errorCode == "NOT_FOUND")
            let stranger = try await client.send(.put, "/admin/1/\(TestServer.container)/development/users/\(user.userRecordName)/roles", body: #"{"roles":["Admin"]}"#)
            #expect(stranger.status == 401)
            _ = try await assign(["Admin"], to: user.userRecordName, client)
            let read = try await client.send(.get, "/admin/1/\(TestServer.container)/development/users/\(user.userRecordName)/roles", headers: client.admin)
            #expect(read["roles"] == .array([.string("Admin")]))
        }
    }
}
