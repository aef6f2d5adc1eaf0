import Foundation
import StratusModel
import Testing

@Suite struct ConstraintsAPITests {
    @Test("in-app messages: localized titles, a real Boolean, and at most one current message, over HTTP")
    func currentMessage() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let schema = """
                DEFINE SCHEMA
                    RECORD TYPE Message (
                        title      LOCALIZED STRING REQUIRED,
                        isCurrent  BOOLEAN QUERYABLE UNIQUE WHERE isCurrent = TRUE,
                        GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator"
                    );
                """
            let imported = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: schema, headers: client.admin)
            #expect(imported.status == 200)
            let admin = try await client.signUp("admin@example.com", token: token)
            let first = try await admin.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"m1","recordType":"Message","fields":{"title":{"value":{"en":"Welcome","es":"Bienvenido"}},"isCurrent":{"value":true}}}}]}"#)
            let saved = try #require(first.records.first)
            #expect(saved["fields"]?.objectValue?["isCurrent"] == .object(["type": .string("BOOLEAN"), "value": .bool(true)]))
            #expect(saved["fields"]?.objectValue?["title"]?.objectValue?["type"] == .string("LOCALIZED_STRING"))
            let second = try await admin.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"m2","recordType":"Message","fields":{"title":{"value":{"en":"Sale"}},"isCurrent":{"value":true}}}}]}"#)
            #expect(second.records.first?["serverErrorCode"] == .string("UNIQUE_FIELD_ERROR"))
            guard case .string(let reason)? = second.records.first?["reason"] else { Issue.record("no reason"); return }
            #expect(reason.contains("isCurrent"))
            let untitled = try await admin.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"m3","recordType":"Message","fields":{"isCurrent":{"value":false}}}}]}"#)
            #expect(untitled.records.first?["serverErrorCode"] == .string("BAD_REQUEST"))
            let current = try await admin.anonymous.post("public", "records/query", #"{"query":{"recordType":"Message","filterBy":[{"comparator":"EQUALS","fieldName":"isCurrent","fieldValue":{"value":true}}]}}"#)
            #expect(current.records.map { $0["recordName"] } == [.string("m1")])
            let spanish = try await admin.anonymous.post("public", "records/query", #"{"query":{"recordType":"Message","filterBy":[{"comparator":"BEGINS_WITH","fieldName":"title.es","fieldValue":{"value":"Bien"}}]}}"#)
            #expect(spanish.records.map { $0["recordName"] } == [.string("m1")])
        }
    }
}
