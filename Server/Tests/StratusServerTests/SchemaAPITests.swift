import Foundation
import HTTPTypes
import StratusModel
import Testing

@Suite struct SchemaAPITests {
    static let schemaText = """
        DEFINE SCHEMA
            CREATE ROLE Admin;
            RECORD TYPE AppFeatures (
                name      STRING QUERYABLE,
                enabled   INT64,
                GRANT READ TO "_world",
                GRANT CREATE, WRITE, READ TO Admin
            );
        """

    func path(_ environment: String) -> String { "/admin/1/\(TestServer.container)/\(environment)/schema" }

    @Test("the development schema imports from text and exports as text that re-imports to the same schema")
    func importAndExport() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let imported = try await client.send(.put, path("development"), body: Self.schemaText, headers: client.admin)
            #expect(imported.status == 200)
            guard case .array(let changes)? = imported["changes"] else { Issue.record("no changes: \(imported.json)"); return }
            #expect(changes.contains { $0.objectValue?["description"] == .string("add record type AppFeatures") })
            let exported = try await client.send(.get, path("development"), headers: client.admin)
            #expect(exported.status == 200)
            #expect(exported.headers[.contentType]?.hasPrefix("text/plain") == true)
            guard case .string(let text) = exported.json else { Issue.record("not text"); return }
            var expected = try SchemaLanguage.parse(Self.schemaText)
            expected.recordTypes["Users"] = Schema.initial.recordTypes["Users"]
            #expect(try SchemaLanguage.parse(text) == expected)
        }
    }

    @Test("schema import refuses production, bad text (naming line and column), strangers and unknown containers")
    func importRefusals() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let production = try await client.send(.put, path("production"), body: Self.schemaText, headers: client.admin)
            #expect(production.status == 400 && production.errorCode == "BAD_REQUEST")
            let bad = try await client.send(.put, path("development"), body: "DEFINE SCHEMA\n  RECORD TYPE A (x STRNG);", headers: client.admin)
            #expect(bad.status == 400)
            guard case .string(let reason)? = bad["reason"] else { Issue.record("no reason"); return }
            #expect(reason.contains("line 2, column 20"))
            let stranger = try await client.send(.put, path("development"), body: Self.schemaText)
            #expect(stranger.status == 401 && stranger.errorCode == "AUTHENTICATION_FAILED")
            let unknown = try await client.send(.get, "/admin/1/iCloud.nope/development/schema", headers: client.admin)
            #expect(unknown.status == 404 && unknown.errorCode == "NOT_FOUND")
        }
    }

    @Test("deploy copies an additive change to production after a dry run; records of the new type save in production")
    func deploy() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.send(.put, path("development"), body: Self.schemaText, headers: client.admin)
            let dryRun = try await client.send(.post, "/admin/1/\(TestServer.container)/deploy", body: #"{"dryRun":true}"#, headers: client.admin)
            #expect(dryRun.status == 200 && dryRun["deployed"] == .bool(false))
            let preview = try await client.send(.get, "/admin/1/\(TestServer.container)/deploy", headers: client.admin)
            #expect(preview["changes"] == dryRun["changes"])
            let unchanged = try await client.send(.get, path("production"), headers: client.admin)
            guard case .string(let before) = unchanged.json else { Issue.record("not text"); return }
            #expect(!before.contains("AppFeatures"))

            let deployed = try await client.send(.post, "/admin/1/\(TestServer.container)/deploy", headers: client.admin)
            #expect(deployed.status == 200 && deployed["deployed"] == .bool(true))
            let after = try await client.send(.get, path("production"), headers: client.admin)
            guard case .string(let text) = after.json else { Issue.record("not text"); return }
            #expect(text.contains("RECORD TYPE AppFeatures"))

            let admin = try await client.signUp("admin@example.com", token: token).inEnvironment("production")
            let assigned = try await client.send(
                .put, "/admin/1/\(TestServer.container)/production/users/\(admin.userRecordName)/roles", body: #"{"roles":["Admin"]}"#, headers: client.admin
            )
            #expect(assigned.status == 200)
            let saved = try await admin.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"f1","recordType":"AppFeatures","fields":{"name":{"value":"chat"},"enabled":{"value":1}}}}]}"#)
            #expect(saved.records.first?["recordChangeTag"] != nil, "\(saved.json)")
            let unknownField = try await admin.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"f2","recordType":"AppFeatures","fields":{"colour":{"value":"red"}}}}]}"#)
            #expect(unknownField.records.first?["serverErrorCode"] == .string("BAD_REQUEST"))
        }
    }

    @Test("a deploy that would remove a field or change a type is refused, naming each offending change")
    func refusedDeploy() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            _ = try await client.send(.put, path("development"), body: Self.schemaText, headers: client.admin)
            _ = try await client.send(.post, "/admin/1/\(TestServer.container)/deploy", headers: client.admin)
            let narrowed = """
                DEFINE SCHEMA
                    CREATE ROLE Admin;
                    RECORD TYPE AppFeatures (name LIST<STRING>, GRANT READ TO "_world");
                """
            _ = try await client.send(.put, path("development"), body: narrowed, headers: client.admin)
            let refused = try await client.send(.post, "/admin/1/\(TestServer.container)/deploy", headers: client.admin)
            #expect(refused.status == 400 && refused.errorCode == "BAD_REQUEST")
            guard case .string(let reason)? = refused["reason"] else { Issue.record("no reason"); return }
            #expect(reason.contains("change the type of AppFeatures.name from STRING to STRING_LIST"))
            #expect(reason.contains("remove field AppFeatures.enabled INT64"))
            let production = try await client.send(.get, path("production"), headers: client.admin)
            guard case .string(let text) = production.json else { Issue.record("not text"); return }
            #expect(text.contains("enabled"))
        }
    }
}
