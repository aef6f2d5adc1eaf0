import Crypto
import Foundation
import HTTPTypes
import StratusModel
import StratusStore
import StratusTestSupport
import Testing

/// Quotas and throttling: request rates per user, server-to-server key and address, counted across nodes; storage
/// quotas per user and per container, refused with `QUOTA_EXCEEDED`; the admin API that sets and shows them.
@Suite struct QuotaAPITests {
    static func setQuotas(_ client: TestClient, _ body: String, container: String? = TestServer.container) async throws {
        let path = container.map { "/admin/1/\($0)/quotas" } ?? "/admin/1/quotas"
        let reply = try await client.send(.put, path, body: body, headers: client.admin)
        guard reply.status == 200 else { throw TestFailure("quotas \(body): \(reply.status) \(reply.json)") }
    }

    /// The same user, talking to another node.
    static func session(_ user: UserSession, on client: TestClient) -> UserSession {
        UserSession(client: client, apiToken: user.apiToken, webAuthToken: user.webAuthToken, userRecordName: user.userRecordName)
    }

    @Test("a user's rate holds across nodes: what one node accepted counts on the other, and 429 THROTTLED says when to retry")
    func userRateAcrossNodes() async throws {
        try await TestServer.runNodes(2, configure: { $0.requestCountSyncInterval = 0.1 }) { nodes in
            let token = try await nodes[0].createContainer()
            let ann = try await nodes[0].signUp("ann@example.com", token: token)
            let bob = try await nodes[0].signUp("bob@example.com", token: token)
            try await Self.setQuotas(nodes[0], #"{"userRequestsPerMinute":10}"#)
            for attempt in 1...6 {
                let reply = try await ann.get("public", "users/caller")
                #expect(reply.status == 200, "request \(attempt) on the first node: \(reply.status) \(reply.json)")
            }
            // Wait until the first node has shared its count.
            let key = "user|\(TestServer.container)|\(ann.userRecordName)"
            let deadline = ContinuousClock.now + .seconds(60)
            var shared: Int64 = 0
            while ContinuousClock.now < deadline {
                let window = Int64(Date().timeIntervalSince1970 * 1000) / 60_000
                shared = try await nodes[0].parts.store.requestCounts(keys: [key], windows: [window - 1, window]).map(\.count).reduce(0, +)
                if shared >= 6 { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(shared >= 6, "the first node's six requests reached the store: \(shared)")

            let annOnSecond = Self.session(ann, on: nodes[1])
            var accepted = 0
            var refusal: Reply?
            for _ in 1...10 {
                let reply = try await annOnSecond.get("public", "users/caller")
                if reply.status == 200 {
                    accepted += 1
                } else {
                    refusal = reply
                    break
                }
            }
            // Four fit in the minute; a fifth only when the minute turned between the two nodes' requests.
            #expect((4...5).contains(accepted), "the second node accepted \(accepted) more")
            #expect(refusal?.status == 429 && refusal?.errorCode == "THROTTLED", "\(String(describing: refusal?.json))")
            let retryAfter = refusal?["retryAfter"]?.integerValue ?? 0
            #expect((1...60).contains(retryAfter), "retryAfter \(retryAfter)")

            let bobOnSecond = Self.session(bob, on: nodes[1])
            #expect(try await bobOnSecond.get("public", "users/caller").status == 200, "another user is not held by ann's rate")
            // An operator is never held by a user's rate.
            let console = try await nodes[1].send(.post, "/database/1/\(TestServer.container)/development/public/records/query",
                body: #"{"query":{"recordType":"Note"}}"#, headers: nodes[1].admin)
            #expect(console.status != 429, "\(console.json)")

            // Lifting the limit holds at once on every node.
            try await Self.setQuotas(nodes[0], #"{"userRequestsPerMinute":0}"#)
            let lifted = try await Self.waitForStatus(200) { try await annOnSecond.get("public", "users/caller") }
            #expect(lifted.status == 200, "\(lifted.json)")
        }
    }

    /// Sends until the answer has `status`, for at most 30 s (a store event crosses nodes within milliseconds).
    static func waitForStatus(_ status: Int, _ send: () async throws -> Reply) async throws -> Reply {
        let deadline = ContinuousClock.now + .seconds(30)
        var reply = try await send()
        while reply.status != status, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            reply = try await send()
        }
        return reply
    }

    @Test("server-to-server keys and client addresses have rates of their own; the admin key is not held by an address's")
    func keyAndAddressRates() async throws {
        try await TestServer.run(configure: { $0.trustForwardedFor = true }) { client in
            let token = try await client.createContainer()
            try await Self.setQuotas(client, #"{"keyRequestsPerMinute":3}"#)
            try await Self.setQuotas(client, #"{"addressRequestsPerMinute":5}"#, container: nil)
            let privateKey = P256.Signing.PrivateKey()
            let created = try await client.send(
                .post, "/admin/1/\(TestServer.container)/keys",
                body: #"{"publicKey":\#(String(decoding: try JSONEncoder().encode(privateKey.publicKey.pemRepresentation), as: UTF8.self))}"#,
                headers: client.admin
            )
            let keyID = try #require(created.string("keyID"), "\(created.json)")
            let path = "/database/1/\(TestServer.container)/development/public/records/query"
            var statuses: [Int] = []
            for index in 1...4 {
                let body = #"{"query":{"recordType":"Note"},"resultsLimit":\#(index)}"#
                var headers = try ServerKeyAPITests.signedHeaders(key: privateKey, keyID: keyID, body: body, path: path)
                headers[.xForwardedFor] = "203.0.113.\(index)"
                statuses.append(try await client.send(.post, path, body: body, headers: headers).status)
            }
            #expect(statuses == [200, 200, 200, 429], "a key's fourth request in a minute: \(statuses)")

            // The container sets no address rate: the defaults' holds, for any of its APIs.
            func fromAddress(_ address: String, headers extra: HTTPFields = [:]) async throws -> Int {
                var headers = extra
                headers[.xForwardedFor] = address
                return try await client.send(.post, "\(path)?ckAPIToken=\(token)", body: #"{"query":{"recordType":"Note"}}"#, headers: headers).status
            }
            var fromOne: [Int] = []
            for _ in 1...6 { fromOne.append(try await fromAddress("198.51.100.20")) }
            #expect(fromOne == [200, 200, 200, 200, 200, 429], "\(fromOne)")
            let signIn = try await client.send(
                .post, "/account/1/\(TestServer.container)/development/signin?ckAPIToken=\(token)",
                body: #"{"email":"nobody@example.com","password":"wrong"}"#, headers: [.xForwardedFor: "198.51.100.20"]
            )
            #expect(signIn.status == 429 && signIn.errorCode == "THROTTLED", "accounts share the address's rate: \(signIn.json)")
            #expect(try await fromAddress("198.51.100.21") == 200, "another address is not held")
            #expect(try await fromAddress("198.51.100.20", headers: client.admin) == 200, "the admin key is not held by an address's rate")
        }
    }

    @Test("a user's private database at its quota refuses saves on every node with 413 QUOTA_EXCEEDED; deletes make room")
    func userStorageQuota() async throws {
        // Measured only when the test asks: a scheduled measurement between two saves would stand in for what the
        // node accepted (a slow machine takes minutes over this test).
        try await TestServer.runNodes(2, configure: { $0.usageInterval = 86_400 }) { nodes in
            let token = try await nodes[0].createContainer()
            let ann = try await nodes[0].signUp("ann@example.com", token: token)
            try await Self.setQuotas(nodes[0], #"{"userStorageBytes":3072}"#)
            let text = String(repeating: "x", count: 1200)
            func save(_ name: String, as user: UserSession) async throws -> Reply {
                try await user.post("private", "records/modify", #"""
                    {"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note","fields":{"text":{"value":"\#(text)"}}}}]}
                    """#)
            }
            let first = try await save("n1", as: ann)
            #expect(first.status == 200 && first.records.first?["recordChangeTag"] != nil, "\(first.json)")
            let second = try await save("n2", as: ann)
            #expect(second.status == 200, "\(second.json)")
            // This node counts what it accepted before any measurement: a third would pass the quota.
            let third = try await save("n3", as: ann)
            #expect(third.status == 413 && third.errorCode == "QUOTA_EXCEEDED", "\(third.status) \(third.json)")

            // Once measured, every node refuses.
            let measured = try await nodes[1].send(.post, "/admin/1/usage/measure", headers: nodes[1].admin)
            #expect(measured.status == 200 && (measured["databases"]?.integerValue ?? 0) >= 1, "\(measured.json)")
            let onSecond = Self.session(ann, on: nodes[1])
            let refused = try await Self.waitForStatus(413) { try await save("n3", as: onSecond) }
            #expect(refused.status == 413 && refused.errorCode == "QUOTA_EXCEEDED", "\(refused.json)")
            #expect(refused.string("reason")?.contains("3 KB quota") == true, "\(refused.json)")

            let usage = try await nodes[0].send(.get, "/admin/1/\(TestServer.container)/usage", headers: nodes[0].admin)
            let databases = usage["databases"]?.arrayValue?.compactMap(\.objectValue) ?? []
            let mine = databases.first { $0["owner"] == .string(ann.userRecordName) }
            #expect(mine?["records"]?.integerValue == 2 && mine?["quotaBytes"]?.integerValue == 3072, "\(usage.json)")
            #expect((mine?["totalBytes"]?.integerValue ?? 0) > 2400, "\(usage.json)")

            let deleted = try await onSecond.post("private", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"n1"}}]}"#)
            #expect(deleted.status == 200 && deleted.records.first?["deleted"] == .bool(true), "deletes are allowed over quota: \(deleted.json)")
            _ = try await nodes[0].send(.post, "/admin/1/usage/measure", headers: nodes[0].admin)
            let again = try await Self.waitForStatus(200) { try await save("n3", as: onSecond) }
            #expect(again.status == 200, "room again after the delete was measured: \(again.json)")
        }
    }

    @Test("quota sizes are taken as bytes or as written (200KB, 5MB), and the usage lists users whose private database is empty with 0")
    func sizesAndEmptyDatabases() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let ann = try await client.signUp("ann@example.com", token: token)
            _ = try await client.signUp("bob@example.com", token: token)
            try await Self.setQuotas(client, #"{"publicStorageBytes":"200KB","userStorageBytes":"5 MB"}"#)
            let listed = try await client.send(.get, "/admin/1/quotas", headers: client.admin)
            let own = listed["containers"]?.objectValue?[TestServer.container]?.objectValue
            #expect(own?["publicStorageBytes"]?.integerValue == 200 * 1024 && own?["userStorageBytes"]?.integerValue == 5 * 1024 * 1024, "\(listed.json)")
            let wrong = try await client.send(.put, "/admin/1/quotas", body: #"{"userStorageBytes":"lots"}"#, headers: client.admin)
            #expect(wrong.status == 400 && (wrong.string("reason") ?? "").contains("200KB"), "\(wrong.json)")

            _ = try await ann.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"text":{"value":"z"}}}}]}"#)
            _ = try await client.send(.post, "/admin/1/usage/measure", headers: client.admin)
            let usage = try await client.send(.get, "/admin/1/\(TestServer.container)/usage", headers: client.admin)
            let rows = usage["databases"]?.arrayValue?.compactMap(\.objectValue) ?? []
            let privateRows = rows.filter { $0["database"]?.stringValue == "private" && $0["environment"]?.stringValue == "development" }
            let bytes = Dictionary(privateRows.compactMap { row in row["owner"]?.stringValue.map { ($0, row["totalBytes"]?.integerValue ?? -1) } }, uniquingKeysWith: { $1 })
            #expect(bytes.count == 2 && (bytes[ann.userRecordName] ?? 0) > 0, "\(usage.json)")
            #expect(bytes.values.filter { $0 == 0 }.count == 1, "Bob's empty private database is listed with 0: \(usage.json)")
        }
    }

    @Test("the public database's quota holds for saves and asset uploads; quotas are checked and listed")
    func publicStorageQuota() async throws {
        // Measured only when the test asks, as above.
        try await TestServer.run(configure: { $0.usageInterval = 86_400 }) { client in
            let token = try await client.createContainer()
            let ann = try await client.signUp("ann@example.com", token: token)
            try await Self.setQuotas(client, #"{"publicStorageBytes":2000,"userStorageBytes":50000}"#)
            let big = String(repeating: "y", count: 1500)
            let notice = #"""
                {"operations":[{"operationType":"create","record":{"recordType":"Notice","fields":{"text":{"value":"\#(big)"}}}}]}
                """#
            let saved = try await ann.post("public", "records/modify", notice)
            #expect(saved.status == 200 && saved.records.first?["recordChangeTag"] != nil, "the first save fits: \(saved.json)")
            _ = try await client.send(.post, "/admin/1/usage/measure", headers: client.admin)
            let path = try await ann.uploadPath(recordType: "Notice", field: "image")
            let (upload, _) = try await client.sendBytes(.post, path, AssetTestSupport.png(1000))
            #expect(upload.status == 413 && upload.errorCode == "QUOTA_EXCEEDED", "a file past the quota: \(upload.json)")
            let refused = try await ann.post("public", "records/modify", notice)
            #expect(refused.status == 413 && refused.errorCode == "QUOTA_EXCEEDED", "\(refused.json)")
            #expect(refused.string("reason")?.contains("public database") == true, "\(refused.json)")
            // The private database has its own quota.
            let privateSave = try await ann.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"text":{"value":"z"}}}}]}"#)
            #expect(privateSave.status == 200, "\(privateSave.json)")

            let listed = try await client.send(.get, "/admin/1/quotas", headers: client.admin)
            #expect(listed["containers"]?.objectValue?[TestServer.container]?.objectValue?["publicStorageBytes"]?.integerValue == 2000, "\(listed.json)")
            let negative = try await client.send(.put, "/admin/1/quotas", body: #"{"userRequestsPerMinute":-1}"#, headers: client.admin)
            #expect(negative.status == 400 && negative.errorCode == "BAD_REQUEST", "\(negative.json)")
            let unknown = try await client.send(.put, "/admin/1/iCloud.nobody/quotas", body: "{}", headers: client.admin)
            #expect(unknown.status == 404, "\(unknown.json)")
            let anonymous = try await client.send(.put, "/admin/1/quotas", body: "{}")
            #expect(anonymous.status == 401, "\(anonymous.json)")
        }
    }
}
