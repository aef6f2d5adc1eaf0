import Foundation
import StratusModel
import StratusTestSupport
import Testing

/// Functions end to end in one server: modules built from C with clang, uploaded through the admin API, bound to
/// `beforeSave`, `afterSave` and callable triggers, and run in the write path, from the outbox and on request.
@Suite struct FunctionAPITests {
    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Admin;
            CREATE ROLE Auditor;
            RECORD TYPE Message (title STRING, priority INT64, titleLength INT64, GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
            RECORD TYPE AppFeatures (name STRING, GRANT READ TO "_world", GRANT CREATE, WRITE, READ TO Admin);
            RECORD TYPE AuditEntry (about STRING, change STRING, GRANT READ TO "_world", GRANT CREATE, WRITE TO Auditor);
        """

    static func withServer(_ body: @escaping @Sendable (TestClient, UserSession) async throws -> Void) async throws {
        try await TestServer.run(configure: { configuration in
            configuration.webhookRetryDelays = [0.2]
            configuration.webhookPollInterval = 0.1
        }) { client in
            let token = try await client.createContainer()
            let schema = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: Self.schema, headers: client.admin)
            guard schema.status == 200 else { throw TestFailure("schema: \(schema.json)") }
            let user = try await client.signUp("ann@example.com", token: token)
            try await body(client, user)
        }
    }

    static func upload(_ client: TestClient, _ name: String, _ bytes: [UInt8]) async throws -> Reply {
        try await client.sendBytes(.put, "/admin/1/\(TestServer.container)/development/functions/modules/\(name)", bytes, headers: client.admin).0
    }

    static func bind(_ client: TestClient, _ name: String, _ json: String) async throws -> Reply {
        try await client.send(.put, "/admin/1/\(TestServer.container)/development/functions/\(name)", body: json, headers: client.admin)
    }

    static func message(_ name: String, title: String?, priority: Int) -> String {
        let titleField = title.map { #""title":{"value":"\#($0)"},"# } ?? ""
        return #"{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Message","fields":{\#(titleField)"priority":{"value":\#(priority)}}}}"#
    }

    @Test("beforeSave accepts, adds a field, refuses with the function's reason; an atomic batch with a refusal writes nothing")
    func beforeSave() async throws {
        try await Self.withServer { client, user in
            let uploaded = try await Self.upload(client, "messages", try WasmModules.example("check_message"))
            #expect(uploaded.status == 200 && uploaded["entries"] == .array([.string("before_save")]), "\(uploaded.json)")
            let bound = try await Self.bind(client, "checkMessage", #"{"module":"messages","trigger":"beforeSave","recordTypes":["Message"]}"#)
            #expect(bound.status == 201 && bound["entry"] == .string("before_save"), "\(bound.json)")

            let saved = try await user.post("public", "records/modify", #"{"operations":[\#(Self.message("m1", title: "Hello", priority: 2))]}"#)
            let record = try #require(saved.records.first, "\(saved.json)")
            #expect(record["serverErrorCode"] == nil, "\(saved.json)")
            #expect((record["fields"]?.objectValue?["titleLength"]?.objectValue?["value"]) == .integer(5), "the function's field: \(saved.json)")

            let refused = try await user.post("public", "records/modify", #"{"operations":[\#(Self.message("m2", title: nil, priority: 2))]}"#)
            #expect(refused.records.first?["serverErrorCode"] == .string("BAD_REQUEST"), "\(refused.json)")
            #expect(refused.records.first?["reason"] == .string("a message needs a title of 1 to 100 characters"), "\(refused.json)")

            let atomic = try await user.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"inbox"}}}]}"#)
            #expect(atomic.status == 200)
            let batch = #"{"zoneID":{"zoneName":"inbox"},"atomic":true,"operations":[\#(Self.message("m3", title: "Fine", priority: 1)),\#(Self.message("m4", title: "Urgent", priority: 9))]}"#
            let both = try await user.post("private", "records/modify", batch)
            #expect(both.records.map { $0["serverErrorCode"] } == [.string("ATOMIC_ERROR"), .string("BAD_REQUEST")], "\(both.json)")
            let lookup = try await user.post("private", "records/lookup", #"{"zoneID":{"zoneName":"inbox"},"records":[{"recordName":"m3"}]}"#)
            #expect(lookup.records.first?["serverErrorCode"] == .string("NOT_FOUND"), "nothing of the batch was written: \(lookup.json)")

            let loose = batch.replacingOccurrences(of: #""atomic":true"#, with: #""atomic":false"#)
            let some = try await user.post("private", "records/modify", loose)
            #expect(some.records.map { $0["serverErrorCode"] } == [nil, .string("BAD_REQUEST")], "\(some.json)")

            // Other types are not checked; a disabled function checks nothing.
            _ = try await Self.bind(client, "checkMessage", #"{"module":"messages","trigger":"beforeSave","recordTypes":["Message"],"enabled":false}"#)
            let unchecked = try await user.post("public", "records/modify", #"{"operations":[\#(Self.message("m5", title: nil, priority: 7))]}"#)
            #expect(unchecked.records.first?["serverErrorCode"] == nil, "\(unchecked.json)")
        }
    }

    @Test("hooks that trap, loop or run out of memory refuse the write with a clear reason, and the server goes on")
    func misbehavingHooks() async throws {
        try await Self.withServer { client, user in
            _ = try await Self.upload(client, "bad", try WasmModules.fixture("misbehave"))
            for (name, entry, limits) in [
                ("trapping", "trap", "{}"), ("looping", "spin", #"{"instructions":2000000}"#), ("hogging", "hog", #"{"memoryBytes":1048576}"#),
            ] {
                let bound = try await Self.bind(
                    client, name, #"{"module":"bad","entry":"\#(entry)","trigger":"beforeSave","recordTypes":["Message"],"limits":\#(limits)}"#
                )
                #expect(bound.status == 201, "\(bound.json)")
                let operation = Self.message("x-" + name, title: "t", priority: 1)
                let saved = try await user.post("public", "records/modify", #"{"operations":[\#(operation)]}"#)
                let reason = saved.records.first?["reason"]?.stringValue ?? ""
                #expect(saved.status == 200 && saved.records.first?["serverErrorCode"] == .string("BAD_REQUEST"), "\(saved.json)")
                let expected = ["trapping": "trapped", "looping": "instructions", "hogging": "memory"][name]!
                #expect(reason.contains("the beforeSave function \(name) failed") && reason.contains(expected), "\(name): \(reason)")
                let deleted = try await client.send(.delete, "/admin/1/\(TestServer.container)/development/functions/\(name)", headers: client.admin)
                #expect(deleted.status == 200)
            }
            let after = try await user.post("public", "records/modify", #"{"operations":[\#(Self.message("fine", title: "t", priority: 1))]}"#)
            #expect(after.records.first?["serverErrorCode"] == nil, "\(after.json)")
            let health = try await client.send(.get, "/readyz")
            #expect(health.status == 200)
        }
    }

    @Test("a callable function answers as the caller; its host requests have the caller's rights, or its role's")
    func callable() async throws {
        try await Self.withServer { client, user in
            _ = try await Self.upload(client, "greeter", try WasmModules.example("greet"))
            _ = try await Self.bind(client, "greet", #"{"module":"greeter","trigger":"callable"}"#)
            let path = "/functions/1/\(TestServer.container)/development/greet?\(user.query)"
            let greeted = try await client.send(.post, path, body: #"{"name":"Ann"}"#)
            #expect(greeted.status == 200 && greeted["greeting"] == .string("Hello, Ann!") && greeted["signedIn"] == .bool(true), "\(greeted.json)")
            let anonymous = try await client.send(.post, "/functions/1/\(TestServer.container)/development/greet?\(user.anonymous.query)", body: #"{"name":"Bo"}"#)
            #expect(anonymous["signedIn"] == .bool(false), "\(anonymous.json)")
            let refused = try await client.send(.post, path, body: "{}")
            #expect(refused.status == 400 && refused["serverErrorCode"] == .string("BAD_REQUEST") && refused["reason"] == .string(#"send {"name": ...}"#), "\(refused.json)")
            let notJSON = try await client.send(.post, path, body: "{name")
            #expect(notJSON.status == 400, "\(notJSON.json)")
            let missing = try await client.send(.post, "/functions/1/\(TestServer.container)/development/nothing?\(user.query)", body: "{}")
            #expect(missing.status == 404, "\(missing.json)")
            let noToken = try await client.send(.post, "/functions/1/\(TestServer.container)/development/greet", body: "{}")
            #expect(noToken.status == 401 || noToken.status == 400, "\(noToken.json)")

            _ = try await Self.upload(client, "tools", try WasmModules.fixture("misbehave"))
            _ = try await Self.bind(client, "forward", #"{"module":"tools","entry":"forward","trigger":"callable","limits":{"seconds":30}}"#)
            _ = try await Self.bind(client, "forwardAsAdmin", #"{"module":"tools","entry":"forward","trigger":"callable","runAsRole":"Admin","limits":{"seconds":30}}"#)
            let feature = #"{"path":"records/modify","database":"public","body":{"operations":[{"operationType":"create","record":{"recordName":"f1","recordType":"AppFeatures","fields":{"name":{"value":"chat"}}}}]}}"#
            let asCaller = try await client.send(.post, "/functions/1/\(TestServer.container)/development/forward?\(user.query)", body: #"{"request":\#(feature)}"#)
            #expect(asCaller.records.first?["serverErrorCode"] == .string("ACCESS_DENIED"), "the caller may not create AppFeatures: \(asCaller.json)")
            let asAdmin = try await client.send(.post, "/functions/1/\(TestServer.container)/development/forwardAsAdmin?\(user.query)", body: #"{"request":\#(feature)}"#)
            #expect(asAdmin.records.first?["recordName"] == .string("f1") && asAdmin.records.first?["serverErrorCode"] == nil, "\(asAdmin.json)")
            let readBack = try await user.anonymous.post("public", "records/lookup", #"{"records":[{"recordName":"f1"}]}"#)
            #expect(readBack.records.first?["recordType"] == .string("AppFeatures"), "\(readBack.json)")

            _ = try await user.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"notes"}}}]}"#)
            _ = try await user.post("private", "records/modify", #"{"zoneID":{"zoneName":"notes"},"operations":[{"operationType":"create","record":{"recordName":"secret","recordType":"Note"}}]}"#)
            let lookup = #"{"path":"records/lookup","database":"private","body":{"zoneID":{"zoneName":"notes"},"records":[{"recordName":"secret"}]}}"#
            let own = try await client.send(.post, "/functions/1/\(TestServer.container)/development/forward?\(user.query)", body: #"{"request":\#(lookup)}"#)
            #expect(own.records.first?["recordName"] == .string("secret"), "the caller's private database: \(own.json)")
            let nobody = try await client.send(.post, "/functions/1/\(TestServer.container)/development/forward?\(user.anonymous.query)", body: #"{"request":\#(lookup)}"#)
            #expect(nobody["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"), "\(nobody.json)")
            let role = try await client.send(.post, "/functions/1/\(TestServer.container)/development/forwardAsAdmin?\(user.query)", body: #"{"request":\#(lookup)}"#)
            #expect(role["serverErrorCode"] == .string("ACCESS_DENIED"), "a role reaches the public database only: \(role.json)")
        }
    }

    @Test("afterSave runs from the outbox and writes records as its role; its events are listed like a webhook's deliveries")
    func afterSave() async throws {
        try await Self.withServer { client, user in
            _ = try await Self.upload(client, "audit", try WasmModules.example("audit_changes"))
            let bound = try await Self.bind(
                client, "audit", #"{"module":"audit","trigger":"afterSave","recordTypes":["Message"],"databases":["public"],"runAsRole":"Auditor","limits":{"seconds":30}}"#
            )
            #expect(bound.status == 201 && bound["eventsEndpoint"] == .string("fn.development.audit"), "\(bound.json)")
            _ = try await user.post("public", "records/modify", #"{"operations":[\#(Self.message("m1", title: "Hi", priority: 1))]}"#)
            _ = try await user.post("public", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"m1"}}]}"#)
            var entries: [[String: JSONValue]] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let query = try await user.anonymous.post("public", "records/query", #"{"query":{"recordType":"AuditEntry"}}"#)
                entries = query.records
                if entries.count >= 2 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let changes = entries.compactMap { $0["fields"]?.objectValue?["change"]?.objectValue?["value"]?.stringValue }.sorted()
            #expect(changes == ["record.created", "record.deleted"], "saw \(entries)")
            #expect(entries.allSatisfy { $0["fields"]?.objectValue?["about"]?.objectValue?["value"] == .string("m1") })
            let deliveries = try await client.send(.get, "/admin/1/\(TestServer.container)/webhooks/fn.development.audit/deliveries", headers: client.admin)
            let rows = deliveries["deliveries"]?.arrayValue ?? []
            #expect(rows.count == 2 && rows.allSatisfy { $0.objectValue?["status"] == .string("delivered") }, "\(deliveries.json)")
            let listed = try await client.send(.get, "/admin/1/\(TestServer.container)/webhooks", headers: client.admin)
            #expect(listed["webhooks"] == .array([]), "a function's endpoint is listed with the function: \(listed.json)")
        }
    }

    @Test("modules are checked on upload and kept while functions use what they export")
    func uploadChecks() async throws {
        try await Self.withServer { client, _ in
            let notWasm = try await Self.upload(client, "junk", Array("hello".utf8))
            #expect(notWasm.status == 400 && (notWasm["reason"]?.stringValue ?? "").contains("not a WebAssembly module"), "\(notWasm.json)")
            _ = try await Self.upload(client, "messages", try WasmModules.example("check_message"))
            let noEntry = try await Self.bind(client, "f", #"{"module":"messages","entry":"nope","trigger":"callable"}"#)
            #expect(noEntry.status == 400 && (noEntry["reason"]?.stringValue ?? "").contains("before_save"), "\(noEntry.json)")
            let noTypes = try await Self.bind(client, "f", #"{"module":"messages","trigger":"beforeSave"}"#)
            #expect(noTypes.status == 400, "\(noTypes.json)")
            let noModule = try await Self.bind(client, "f", #"{"module":"missing","trigger":"callable"}"#)
            #expect(noModule.status == 404, "\(noModule.json)")
            let tooMuch = try await Self.bind(client, "f", #"{"module":"messages","trigger":"beforeSave","recordTypes":["Message"],"limits":{"seconds":600}}"#)
            #expect(tooMuch.status == 400, "\(tooMuch.json)")
            _ = try await Self.bind(client, "check", #"{"module":"messages","trigger":"beforeSave","recordTypes":["Message"]}"#)
            let replaced = try await Self.upload(client, "messages", try WasmModules.example("greet"))
            #expect(replaced.status == 409 && (replaced["reason"]?.stringValue ?? "").contains("check"), "\(replaced.json)")
            let inUse = try await client.send(.delete, "/admin/1/\(TestServer.container)/development/functions/modules/messages", headers: client.admin)
            #expect(inUse.status == 409, "\(inUse.json)")
            let listed = try await client.send(.get, "/admin/1/\(TestServer.container)/functions", headers: client.admin)
            #expect(listed["modules"]?.arrayValue?.count == 1 && listed["functions"]?.arrayValue?.count == 1, "\(listed.json)")
            let effective = listed["functions"]?.arrayValue?.first?.objectValue?["effectiveLimits"]?.objectValue
            #expect(effective?["instructions"] == .integer(20_000_000), "\(listed.json)")
        }
    }
}
