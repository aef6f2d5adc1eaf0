import Foundation
import HTTPTypes
import StratusModel
import Testing

/// What black-box probes found: account lockout, password spraying, deep parent chains and unbounded
/// just-in-time schemas.
@Suite struct HardeningAPITests {
    static func signIn(_ client: TestClient, token: String, email: String, password: String, from address: String) async throws -> Reply {
        try await client.send(
            .post, "/auth/1/\(TestServer.container)/development/signin?ckAPIToken=\(token)",
            body: #"{"emailAddress":"\#(email)","password":"\#(password)"}"#, headers: [.xForwardedFor: "203.0.113.9, \(address)"]
        )
    }

    /// Sends wrong passwords until one is answered `429`; answers how many were answered `401` before it.
    static func failuresBeforeThrottle(
        _ client: TestClient, token: String, email: (Int) -> String, from address: (Int) -> String
    ) async throws -> Int? {
        for attempt in 0..<60 {
            let reply = try await signIn(client, token: token, email: email(attempt), password: "guess guess", from: address(attempt))
            if reply.status == 429 {
                #expect(reply.errorCode == "THROTTLED" && reply["retryAfter"] != nil)
                return attempt
            }
            #expect(reply.status == 401)
        }
        return nil
    }

    @Test("wrong passwords from one address do not lock the account's owner out at another")
    func noLockout() async throws {
        try await TestServer.run(configure: { $0.trustForwardedFor = true }) { client in
            let token = try await client.createContainer()
            _ = try await client.signUp("alice@example.com", token: token)
            let failures = try await Self.failuresBeforeThrottle(client, token: token, email: { _ in "alice@example.com" }, from: { _ in "198.51.100.1" })
            // The fifth failure starts a pause of five seconds; a very slow machine might fit another in before it.
            #expect((5...8).contains(failures ?? -1), "throttled after \(String(describing: failures)) failures")
            let owner = try await Self.signIn(client, token: token, email: "alice@example.com", password: "correct horse", from: "198.51.100.2")
            #expect(owner.status == 200 && owner["ckWebAuthToken"] != nil)
        }
    }

    @Test("one address trying a password on many accounts is throttled across accounts")
    func spraying() async throws {
        try await TestServer.run(configure: { $0.trustForwardedFor = true }) { client in
            let token = try await client.createContainer()
            _ = try await client.signUp("target@example.com", token: token)
            let failures = try await Self.failuresBeforeThrottle(client, token: token, email: { "user\($0)@example.com" }, from: { _ in "198.51.100.7" })
            #expect((30...33).contains(failures ?? -1), "throttled after \(String(describing: failures)) failures")
            let elsewhere = try await Self.signIn(client, token: token, email: "target@example.com", password: "correct horse", from: "198.51.100.8")
            #expect(elsewhere.status == 200)
        }
    }

    @Test("X-Forwarded-For is ignored unless the server is told to trust it")
    func forwardedForUntrusted() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.signUp("alice@example.com", token: token)
            let failures = try await Self.failuresBeforeThrottle(client, token: token, email: { _ in "alice@example.com" }, from: { "198.51.100.\($0)" })
            #expect((5...8).contains(failures ?? -1), "throttled after \(String(describing: failures)) failures")
        }
    }

    @Test("parents cannot form a cycle at any depth, and a participant reaches records 300 levels deep")
    func deepParentChains() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            try await alice.createZone("Deep")
            let depth = 300
            for start in stride(from: 0, to: depth, by: 150) {
                let records = (start..<min(depth, start + 150)).map { index in
                    index == 0
                        ? #"{"recordName":"d0","recordType":"Node"}"#
                        : #"{"recordName":"d\#(index)","recordType":"Node","parent":{"recordName":"d\#(index - 1)"}}"#
                }
                let saved = try await alice.save(records, zone: "Deep")
                #expect(saved.recordErrors.allSatisfy { $0 == nil }, "\(saved.json)")
            }
            let cycle = try await alice.save([#"{"recordName":"d0","recordType":"Node","parent":{"recordName":"d\#(depth - 1)"}}"#], zone: "Deep", operation: "forceUpdate")
            #expect(cycle.recordErrors == ["BAD_REQUEST"])
            #expect(cycle.records.first?["reason"]?.stringValue?.contains("cycle") == true)

            let share = try await alice.share("d0", zone: "Deep", participants: [participant(userRecordName: bob.userRecordName)])
            guard case .string(let guid)? = share["shortGUID"] else { return }
            _ = try await bob.shareResults("accept", [guid])
            let deepest = try await bob.sharedLookup(["d\(depth - 1)"], zoneID: alice.zoneID("Deep"))
            #expect(deepest.records.first?["recordName"] == .string("d\(depth - 1)"), "\(deepest.json)")
        }
    }

    @Test("just-in-time schema stops at the documented limits, with a clear error")
    func schemaLimits() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let fields = (0..<SchemaLimits.maximumFieldsPerType).map { #""f\#($0)":{"value":1}"# }.joined(separator: ",")
            let wide = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"w","recordType":"Wide","fields":{\#(fields)}}}]}"#)
            #expect(wide.recordErrors == [nil])
            let wider = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"w2","recordType":"Wide","fields":{"one_more":{"value":1}}}}]}"#)
            #expect(wider.recordErrors == ["BAD_REQUEST"])
            #expect(wider.records.first?["reason"]?.stringValue?.contains("limit") == true)

            var types = "DEFINE SCHEMA\n"
            for index in 0..<SchemaLimits.maximumRecordTypes { types += "RECORD TYPE T\(index) (name STRING);\n" }
            let imported = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: types, headers: client.admin)
            #expect(imported.status == 400 && imported["reason"]?.stringValue?.contains("limit") == true, "\(imported.json)")
        }
    }

    @Test("text holding U+0000 is refused with 400 on every backend and nothing is stored; an escaped backslash before u0000 is text")
    func nulCharacter() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let refused = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"a\u0000b"}}}}]}"#)
            #expect(refused.status == 400)
            #expect(refused.errorCode == "BAD_REQUEST")
            #expect(refused["reason"]?.stringValue?.contains("U+0000") == true)
            let named = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"n\u0000","recordType":"Note","fields":{}}}]}"#)
            #expect(named.status == 400)
            let missing = try await alice.post("private", "records/lookup", #"{"records":[{"recordName":"n1"}]}"#)
            #expect(missing.records.first?["serverErrorCode"] == .string("NOT_FOUND"))

            let saved = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"n2","recordType":"Note","fields":{"title":{"value":"a\\u0000b"}}}}]}"#)
            #expect(saved.status == 200)
            let read = try await alice.post("private", "records/lookup", #"{"records":[{"recordName":"n2"}]}"#)
            #expect(read.records.first?["fields"]?.objectValue?["title"]?.objectValue?["value"] == .string(#"a\u0000b"#))
        }
    }
}

extension HTTPField.Name {
    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
}
