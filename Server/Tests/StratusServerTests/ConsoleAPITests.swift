import Foundation
import HTTPTypes
import StratusModel
import Testing

/// The endpoints the web console is built on: its session, operator calls, and the operator views.
@Suite struct ConsoleAPITests {
    /// Signs in to the console; answers the cookie header and the CSRF header.
    static func signIn(_ client: TestClient) async throws -> HTTPFields {
        let reply = try await client.send(.post, "/admin/1/session", body: #"{"adminKey":"\#(TestServer.adminKey)"}"#)
        guard reply.status == 200, let setCookie = reply.headers[.setCookie], case .string(let csrf)? = reply["csrfToken"] else {
            throw TestFailure("console sign-in answered \(reply.status) \(reply.json)")
        }
        let cookie = String(setCookie.split(separator: ";")[0])
        return [.cookie: cookie, HTTPField.Name("X-Stratus-CSRF")!: csrf]
    }

    @Test("the console session: an HttpOnly SameSite cookie, a CSRF token every call needs, and sign-out that ends it")
    func session() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let wrong = try await client.send(.post, "/admin/1/session", body: #"{"adminKey":"guess"}"#)
            #expect(wrong.status == 401)
            #expect(wrong.errorCode == "AUTHENTICATION_FAILED")
            #expect(wrong.headers[.setCookie] == nil)

            let reply = try await client.send(.post, "/admin/1/session", body: #"{"adminKey":"\#(TestServer.adminKey)"}"#)
            let setCookie = reply.headers[.setCookie] ?? ""
            #expect(setCookie.contains("HttpOnly"))
            #expect(setCookie.contains("SameSite=Strict"))
            #expect(setCookie.contains("Path=/"))
            let headers = try await Self.signIn(client)
            let cookieOnly: HTTPFields = [.cookie: headers[.cookie]!]

            #expect(try await client.send(.get, "/admin/1/containers", headers: headers).status == 200)
            let withoutToken = try await client.send(.get, "/admin/1/containers", headers: cookieOnly)
            #expect(withoutToken.status == 401)
            #expect(withoutToken.json.objectValue?["reason"]?.stringValue?.contains("CSRF") == true)
            var forged = headers
            forged[HTTPField.Name("X-Stratus-CSRF")!] = String(repeating: "0", count: 64)
            #expect(try await client.send(.get, "/admin/1/containers", headers: forged).status == 401)

            // A reloaded page asks for its token with the cookie alone.
            let current = try await client.send(.get, "/admin/1/session", headers: cookieOnly)
            #expect(current["csrfToken"]?.stringValue == headers[HTTPField.Name("X-Stratus-CSRF")!])

            let signedOut = try await client.send(.delete, "/admin/1/session", headers: headers)
            #expect(signedOut.status == 200)
            #expect(signedOut.headers[.setCookie]?.contains("Max-Age=0") == true)
            #expect(try await client.send(.get, "/admin/1/containers", headers: headers).status == 401)
            #expect(try await client.send(.get, "/admin/1/session", headers: cookieOnly).status == 401)
        }
    }

    @Test("a console session acts as operator: every permission in public, a named user's private database")
    func operatorCalls() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: """
                DEFINE SCHEMA
                    RECORD TYPE Notice (title STRING QUERYABLE, GRANT READ TO "_world");
                """, headers: client.admin)
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            _ = try await alice.post("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"text":{"value":"hi"}}}}]}"#)
            let console = try await Self.signIn(client)
            let base = "/database/1/\(TestServer.container)/development"

            // Nobody may create a Notice by grants; the operator may.
            let created = try await client.send(.post, "\(base)/public/records/modify", body: #"{"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Notice","fields":{"title":{"value":"Hello"}}}}]}"#, headers: console)
            #expect(created.status == 200)
            #expect(created.records.first?["recordName"] == .string("x"))
            #expect(created.records.first?["created"]?.objectValue?["userRecordName"] == .string("_console"), "\(created.json)")

            var asAlice = console
            asAlice[HTTPField.Name("X-Stratus-User")!] = alice.userRecordName
            let notes = try await client.send(.post, "\(base)/private/records/query", body: #"{"zoneID":{"zoneName":"Notes"},"query":{"recordType":"Note"}}"#, headers: asAlice)
            #expect(notes.records.map { $0["recordName"] } == [.string("n1")])
            let zones = try await client.send(.get, "\(base)/private/zones/list", headers: asAlice)
            #expect(zones.json.objectValue?["zones"]?.arrayValue?.count == 2)

            let unnamed = try await client.send(.post, "\(base)/private/records/query", body: #"{"query":{"recordType":"Note"}}"#, headers: console)
            #expect(unnamed.status == 400)
            #expect(unnamed.json.objectValue?["reason"]?.stringValue?.contains("X-Stratus-User") == true)
            var asNobody = console
            asNobody[HTTPField.Name("X-Stratus-User")!] = "_nobody"
            #expect(try await client.send(.post, "\(base)/private/records/query", body: #"{"query":{"recordType":"Note"}}"#, headers: asNobody).status == 404)

            // Without its CSRF token the cookie grants nothing; with an API token the request is the app's, not the operator's.
            let cookieOnly: HTTPFields = [.cookie: console[.cookie]!]
            #expect(try await client.send(.post, "\(base)/public/records/query", body: #"{"query":{"recordType":"Notice"}}"#, headers: cookieOnly).status == 401)
            let anonymous = try await client.send(.post, "\(base)/public/records/modify?ckAPIToken=\(token)", body: #"{"operations":[{"operationType":"create","record":{"recordName":"y","recordType":"Notice"}}]}"#, headers: console)
            #expect(anonymous.status == 421, "\(anonymous.json)")
        }
    }

    @Test("rotating the API token replaces it at once")
    func tokenRotation() async throws {
        try await TestServer.run { client in
            let old = try await client.createContainer()
            let rotated = try await client.send(.post, "/admin/1/\(TestServer.container)/token", body: "{}", headers: client.admin)
            guard case .string(let new)? = rotated["apiToken"] else { throw TestFailure("no token: \(rotated.json)") }
            #expect(new != old)
            #expect(new.count == 64)
            let path = "/database/1/\(TestServer.container)/development/public/records/query"
            #expect(try await client.send(.post, path + "?ckAPIToken=\(old)", body: #"{"query":{"recordType":"Users"}}"#).status == 401)
            #expect(try await client.send(.post, path + "?ckAPIToken=\(new)", body: #"{"query":{"recordType":"Users"}}"#).status == 200)
            let listed = try await client.send(.get, "/admin/1/containers", headers: client.admin)
            #expect(listed.json.objectValue?["containers"]?.arrayValue?.first?.objectValue?["apiToken"] == .string(new))
            #expect(try await client.send(.post, "/admin/1/iCloud.missing/token", body: "{}", headers: client.admin).status == 404)
            #expect(try await client.send(.post, "/admin/1/\(TestServer.container)/token", body: "{}").status == 401)

            // A given token (a container moved from another server keeps its apps' token).
            let moved = String(repeating: "5a", count: 32)
            let given = try await client.send(.post, "/admin/1/\(TestServer.container)/token", body: #"{"apiToken":"\#(moved)"}"#, headers: client.admin)
            #expect(given.status == 200 && given["apiToken"] == .string(moved), "\(given.json)")
            #expect(try await client.send(.post, path + "?ckAPIToken=\(moved)", body: #"{"query":{"recordType":"Users"}}"#).status == 200)
            #expect(try await client.send(.post, path + "?ckAPIToken=\(new)", body: #"{"query":{"recordType":"Users"}}"#).status == 401)
            for bad in ["short", String(repeating: "Z", count: 64), String(repeating: "A", count: 64)] {
                let refused = try await client.send(.post, "/admin/1/\(TestServer.container)/token", body: #"{"apiToken":"\#(bad)"}"#, headers: client.admin)
                #expect(refused.status == 400 && refused.errorCode == "BAD_REQUEST", "\(bad): \(refused.json)")
            }
            _ = try await client.send(.post, "/admin/1/containers", body: #"{"containerID":"iCloud.com.example.Second"}"#, headers: client.admin)
            let taken = try await client.send(.post, "/admin/1/iCloud.com.example.Second/token", body: #"{"apiToken":"\#(moved)"}"#, headers: client.admin)
            #expect(taken.status == 409 && taken.errorCode == "EXISTS", "another container's token: \(taken.json)")
        }
    }

    @Test("the user directory searches, pages, and shows record counts and roles")
    func users() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: """
                DEFINE SCHEMA
                    CREATE ROLE Admin;
                    RECORD TYPE Post (text STRING, GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
                """, headers: client.admin)
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await client.signUp("bob@example.com", token: token)
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Post","recordName":"p1"}},{"operationType":"create","record":{"recordType":"Post","recordName":"p2"}}]}"#)
            _ = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"n1"}}]}"#)
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/users/\(alice.userRecordName)/roles", body: #"{"roles":["Admin"]}"#, headers: client.admin)

            let base = "/admin/1/\(TestServer.container)/development/users"
            let all = try await client.send(.get, base, headers: client.admin)
            let users = all.json.objectValue?["users"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(users.map { $0["emailAddress"] } == [.string("alice@example.com"), .string("bob@example.com")])
            #expect(users.first?["publicRecords"] == .integer(2))
            #expect(users.first?["privateRecords"] == .integer(1))
            #expect(users.first?["roles"] == .array([.string("Admin")]))
            #expect(users.last?["roles"] == .array([]))
            #expect(all["moreComing"] == .bool(false))

            let found = try await client.send(.get, base + "?search=BOB", headers: client.admin)
            #expect(found.json.objectValue?["users"]?.arrayValue?.count == 1)
            let paged = try await client.send(.get, base + "?limit=1&offset=0", headers: client.admin)
            #expect(paged["moreComing"] == .bool(true))
            #expect(try await client.send(.get, base + "?limit=0", headers: client.admin).status == 400)
            #expect(try await client.send(.get, base + "?offset=x", headers: client.admin).status == 400)
            let production = try await client.send(.get, "/admin/1/\(TestServer.container)/production/users", headers: client.admin)
            #expect(production.json.objectValue?["users"]?.arrayValue?.first?.objectValue?["roles"] == .array([]))
        }
    }

    @Test("every user's subscriptions are listed per database")
    func subscriptions() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let subscription = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"s1","subscriptionType":"query","query":{"recordType":"Post"},"firesOn":["create"]}}]}"#
            #expect(try await alice.post("public", "subscriptions/modify", subscription).status == 200)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            let zone = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"z1","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}}]}"#
            let zoneReply = try await alice.post("private", "subscriptions/modify", zone)
            #expect(zoneReply.json.objectValue?["subscriptions"]?.arrayValue?.first?.objectValue?["serverErrorCode"] == nil)
            let base = "/admin/1/\(TestServer.container)/development/subscriptions"
            let listed = try await client.send(.get, base, headers: client.admin)
            let first = listed.json.objectValue?["subscriptions"]?.arrayValue?.first?.objectValue
            #expect(first?["owner"] == .string(alice.userRecordName))
            #expect(first?["subscription"]?.objectValue?["subscriptionID"] == .string("s1"))
            #expect(first?["databaseOwner"] == nil)
            let privateOnes = try await client.send(.get, base + "?database=private", headers: client.admin)
            #expect(privateOnes.json.objectValue?["subscriptions"]?.arrayValue?.first?.objectValue?["databaseOwner"] == .string(alice.userRecordName))
            #expect(try await client.send(.get, base + "?database=secret", headers: client.admin).status == 400)
        }
    }

    @Test("activity lists recent requests without their query strings, and counts the last hour")
    func activity() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.send(.post, "/database/1/\(TestServer.container)/development/public/records/query?ckAPIToken=\(token)", body: #"{"query":{"recordType":"Users"}}"#)
            _ = try await client.send(.post, "/database/1/\(TestServer.container)/development/public/records/query?ckAPIToken=wrong", body: "{}")
            let activity = try await client.send(.get, "/admin/1/activity", headers: client.admin)
            let recent = activity.json.objectValue?["recent"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(recent.count == 3)
            #expect(recent.map { $0["status"] } == [.integer(201), .integer(200), .integer(401)])
            #expect(recent.allSatisfy { !($0["path"]?.stringValue ?? "?").contains("?") })
            #expect(activity.json.objectValue?["lastHour"]?.objectValue?["requests"] == .integer(3))
            #expect(activity.json.objectValue?["lastHour"]?.objectValue?["errors"] == .integer(1))
            #expect(activity.json.objectValue?["lastHour"]?.objectValue?["p99Ms"] != nil)
            guard case .integer(let last)? = recent.last?["sequence"] else { throw TestFailure("no sequence") }
            let after = try await client.send(.get, "/admin/1/activity?after=\(Int(last))", headers: client.admin)
            #expect(after.json.objectValue?["recent"]?.arrayValue?.isEmpty == true)
        }
    }

    @Test("the schema as JSON round-trips, is checked like text, and the deploy preview says what is refused")
    func schemaJSON() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let path = "/admin/1/\(TestServer.container)/development/schema"
            _ = try await client.send(.put, path, body: """
                DEFINE SCHEMA
                    RECORD TYPE Message (isCurrent BOOLEAN QUERYABLE UNIQUE WHERE isCurrent = TRUE, title LOCALIZED STRING);
                """, headers: client.admin)
            let json = try await client.send(.get, path + "?format=json", headers: client.admin)
            let message = json.json.objectValue?["recordTypes"]?.objectValue?["Message"]?.objectValue
            #expect(message?["fields"]?.objectValue?["title"]?.objectValue?["type"] == .string("LOCALIZED_STRING"))
            guard case .object(var schema) = json.json, case .object(var types)? = schema["recordTypes"] else { throw TestFailure("not a schema") }
            guard case .object(var type)? = types["Message"], case .object(var fields)? = type["fields"] else { throw TestFailure("no Message") }
            fields["body"] = .object(["type": .string("STRING"), "indexes": .integer(4)])
            type["fields"] = .object(fields)
            types["Message"] = .object(type)
            schema["recordTypes"] = .object(types)
            var headers = client.admin
            headers[.contentType] = "application/json"
            let saved = try await client.send(.put, path, json: .object(schema), headers: headers)
            #expect(saved.status == 200)
            #expect(saved.json.objectValue?["changes"]?.arrayValue?.count == 1)
            // Schema text is text whatever its Content-Type says.
            #expect(try await client.send(.put, path, body: "DEFINE SCHEMA RECORD TYPE Typed (x STRING);", headers: headers).status == 200)
            _ = try await client.send(.put, path, json: .object(schema), headers: headers)
            let text = try await client.send(.get, path, headers: client.admin)
            #expect(text.json.stringValue?.contains("body") == true)
            #expect(text.json.stringValue?.contains("SEARCHABLE") == true)

            let unknown = try await client.send(.put, path, body: #"{"recordTypes":{"T":{"name":"T","fields":{"f":{"type":"COLOR"}}}}}"#, headers: headers)
            #expect(unknown.status == 400)
            let badGrant = try await client.send(.put, path, body: #"{"recordTypes":{"T":{"name":"T","grants":{"Editor":["READ"]}}}}"#, headers: headers)
            #expect(badGrant.status == 400)

            _ = try await client.send(.post, "/admin/1/\(TestServer.container)/deploy", headers: client.admin)
            _ = try await client.send(.put, path, body: "DEFINE SCHEMA RECORD TYPE Other (x STRING);", headers: client.admin)
            let preview = try await client.send(.get, "/admin/1/\(TestServer.container)/deploy", headers: client.admin)
            #expect(preview.status == 200)
            #expect(preview["deployable"] == .bool(false))
            let changes = preview.json.objectValue?["changes"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(changes.contains { $0["recordType"] == .string("Message") && $0["additive"] == .bool(false) })
            #expect(changes.contains { $0["recordType"] == .string("Other") && $0["additive"] == .bool(true) })
        }
    }

    @Test("the console is served with a strict content security policy; unknown files are CloudKit-style errors")
    func consoleFiles() async throws {
        try await TestServer.run { client in
            for path in ["/console", "/console/", "/console/index.html"] {
                let page = try await client.send(.get, path)
                #expect(page.status == 200)
                #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
                #expect(page.json.stringValue?.contains("/console/js/app.js") == true)
            }
            let script = try await client.send(.get, "/console/js/app.js")
            #expect(script.headers[.contentType]?.hasPrefix("text/javascript") == true)
            let missing = try await client.send(.get, "/console/js/nothing.js")
            #expect(missing.status == 404)
            #expect(missing.errorCode == "NOT_FOUND")
            #expect(try await client.send(.get, "/console/../Package.swift").status == 404)
        }
    }
}

