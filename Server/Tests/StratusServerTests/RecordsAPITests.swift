import Foundation
import StratusModel
import Testing

@Suite struct RecordsAPITests {
    @Test("records are saved, looked up, conflict on a stale tag with the server record, and deleted")
    func recordLifecycle() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let created = try await alice.post("private", "records/modify", #"""
                {"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note",
                  "fields":{"title":{"value":"Hello"},"count":{"value":9223372036854775807},"at":{"value":1700000000000,"type":"TIMESTAMP"},
                            "where":{"value":{"latitude":1.5,"longitude":2.5}},"tags":{"value":["a","b"]},"raw":{"value":"AAE=","type":"BYTES"}}}}]}
                """#)
            #expect(created.status == 200)
            let record = try #require(created.records.first)
            #expect(record["recordName"] == .string("n1"))
            #expect(record["fields"]?.objectValue?["count"]?.objectValue?["value"] == .integer(Int64.max))
            #expect(record["fields"]?.objectValue?["raw"]?.objectValue?["type"] == .string("BYTES"))
            #expect(record["created"]?.objectValue?["userRecordName"] == .string(alice.userRecordName))
            guard case .string(let tag)? = record["recordChangeTag"] else { Issue.record("no tag"); return }

            let exists = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note"}}]}"#)
            #expect(exists.status == 200)
            // As Apple's live server answers: CONFLICT, with the record as the server has it.
            #expect(exists.records.first?["serverErrorCode"] == .string("CONFLICT"))
            #expect(exists.records.first?["serverRecord"]?.objectValue?["recordChangeTag"] == .string(tag))

            let updated = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"update","record":{"recordName":"n1","recordChangeTag":"\#(tag)","fields":{"title":{"value":"Changed"}}}}]}"#)
            guard case .string(let newTag)? = updated.records.first?["recordChangeTag"] else { Issue.record("update failed: \(updated.json)"); return }
            #expect(newTag != tag)

            let stale = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"update","record":{"recordName":"n1","recordChangeTag":"\#(tag)","fields":{"title":{"value":"Lost"}}}}]}"#)
            let conflict = try #require(stale.records.first)
            #expect(conflict["serverErrorCode"] == .string("CONFLICT"))
            #expect(conflict["serverRecord"]?.objectValue?["recordChangeTag"] == .string(newTag))
            #expect(conflict["serverRecord"]?.objectValue?["fields"]?.objectValue?["title"]?.objectValue?["value"] == .string("Changed"))

            let lookup = try await alice.post("private", "records/lookup", #"{"records":[{"recordName":"n1"},{"recordName":"missing"}],"desiredKeys":["title"],"numbersAsStrings":true}"#)
            #expect(lookup.records.count == 2)
            #expect(lookup.records[0]["fields"]?.objectValue?.keys.sorted() == ["title"])
            #expect(lookup.records[1]["serverErrorCode"] == .string("NOT_FOUND"))
            let numbers = try await alice.post("private", "records/lookup", #"{"records":[{"recordName":"n1"}],"numbersAsStrings":true}"#)
            #expect(numbers.records.first?["fields"]?.objectValue?["count"]?.objectValue?["value"] == .string("9223372036854775807"))

            let deleted = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"delete","record":{"recordName":"n1","recordChangeTag":"\#(newTag)"}}]}"#)
            #expect(deleted.records.first?["deleted"] == .bool(true))
            let gone = try await alice.post("private", "records/lookup", #"{"records":[{"recordName":"n1"}]}"#)
            #expect(gone.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
        }
    }

    @Test("anonymous callers read the public database; users never see each other's private records")
    func visibility() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"hello","recordType":"Post","fields":{"text":{"value":"hi"}}}}]}"#)
            _ = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"diary","recordType":"Entry"}}]}"#)
            let anonymous = try await alice.anonymous.post("public", "records/query", #"{"query":{"recordType":"Post"}}"#)
            #expect(anonymous.status == 200 && anonymous.records.count == 1)
            let bobLookup = try await bob.post("private", "records/lookup", #"{"records":[{"recordName":"diary"}]}"#)
            #expect(bobLookup.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
            let bobDelete = try await bob.post("public", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"hello"}}]}"#)
            #expect(bobDelete.records.first?["serverErrorCode"] == .string("ACCESS_DENIED"))
        }
    }

    @Test("development and production keep separate data, and production refuses unknown types")
    func environments() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"m1","recordType":"Message"}}]}"#)
            let production = alice.inEnvironment("production")
            let lookup = try await production.post("public", "records/lookup", #"{"records":[{"recordName":"m1"}]}"#)
            #expect(lookup.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
            let save = try await production.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"m1","recordType":"Message"}}]}"#)
            #expect(save.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
            let query = try await production.post("public", "records/query", #"{"query":{"recordType":"Message"}}"#)
            #expect(query.status == 404 && query.errorCode == "NOT_FOUND")
        }
    }

    @Test("an atomic batch in a custom zone fails together, reporting ATOMIC_ERROR for the others")
    func atomicBatch() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#)
            let reply = try await alice.post("private", "records/modify", #"""
                {"zoneID":{"zoneName":"Lists"},"operations":[
                  {"operationType":"create","record":{"recordName":"a","recordType":"Item","fields":{"n":{"value":1}}}},
                  {"operationType":"create","record":{"recordName":"b","recordType":"Item","fields":{"n":{"value":"not a number"}}}}]}
                """#)
            #expect(reply.records.map { $0["serverErrorCode"] } == [.string("ATOMIC_ERROR"), .string("BAD_REQUEST")])
            let lookup = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Lists"},"records":[{"recordName":"a"}]}"#)
            #expect(lookup.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
        }
    }

    @Test("references: VALIDATE refuses a missing target per record, DELETE_SELF cascades over HTTP")
    func references() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let dangling = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"o1","recordType":"Order","fields":{"customer":{"value":{"recordName":"ghost","action":"VALIDATE"}}}}}]}"#)
            #expect(dangling.records.first?["serverErrorCode"] == .string("VALIDATING_REFERENCE_ERROR"))
            _ = try await alice.post("private", "records/modify", #"""
                {"operations":[{"operationType":"create","record":{"recordName":"room","recordType":"Room"}},
                  {"operationType":"create","record":{"recordName":"m1","recordType":"Message","fields":{"room":{"value":{"recordName":"room","action":"DELETE_SELF"}}}}}]}
                """#)
            let deleted = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"room"}}]}"#)
            #expect(deleted.records.first?["deleted"] == .bool(true))
            let lookup = try await alice.post("private", "records/lookup", #"{"records":[{"recordName":"m1"}]}"#)
            #expect(lookup.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
        }
    }

    @Test("queries filter, sort and page with continuation markers over HTTP")
    func queries() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let operations = (0..<25).map { #"{"operationType":"create","record":{"recordName":"m\#($0)","recordType":"Message","fields":{"isCurrent":{"value":\#($0 % 5 == 0 ? 1 : 0)},"version":{"value":\#($0)}}}}"# }
            _ = try await alice.post("public", "records/modify", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
            let current = try await alice.anonymous.post("public", "records/query", #"{"query":{"recordType":"Message","filterBy":[{"comparator":"EQUALS","fieldName":"isCurrent","fieldValue":{"value":1}}],"sortBy":[{"fieldName":"version","ascending":false}]}}"#)
            #expect(current.records.map { $0["recordName"] } == ["m20", "m15", "m10", "m5", "m0"].map(JSONValue.string))
            var seen: [JSONValue] = []
            var marker: String?
            repeat {
                let markerJSON = marker.map { #","continuationMarker":"\#($0)""# } ?? ""
                let page = try await alice.post("public", "records/query", #"{"query":{"recordType":"Message","sortBy":[{"fieldName":"version"}]},"resultsLimit":10\#(markerJSON)}"#)
                #expect(page.status == 200)
                seen += page.records.compactMap { $0["recordName"] }
                if case .string(let next)? = page["continuationMarker"] { marker = next } else { marker = nil }
            } while marker != nil
            #expect(seen == (0..<25).map { .string("m\($0)") })
        }
    }
}
