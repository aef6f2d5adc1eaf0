import Foundation
import HTTPTypes
import StratusModel
import StratusStore
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Telemetry from every node (requests, errors by code, latency, notifications, active users, storage) and the
/// request log, searched by user, record type, error code and time.
@Suite struct TelemetryAPITests {
    /// The telemetry of the last hour, once its totals show `requests` requests (each node writes every 0.1 s here).
    static func telemetry(_ client: TestClient, atLeast requests: Int64, notifications: Int64 = 0) async throws -> Reply {
        var reply = try await client.send(.get, "/admin/1/\(TestServer.container)/development/telemetry?range=hour", headers: client.admin)
        // Answers what was counted by then if the figures never arrive: the caller's expectations say what is missing.
        try? await Polling.until("the telemetry counts \(requests) requests", within: 60, every: .milliseconds(100)) {
            reply = try await client.send(.get, "/admin/1/\(TestServer.container)/development/telemetry?range=hour", headers: client.admin)
            let totals = reply["totals"]?.objectValue
            return (totals?["requests"]?.integerValue ?? 0) >= requests && (totals?["notifications"]?.integerValue ?? 0) >= notifications
        }
        return reply
    }

    /// A JSON number, integer or not.
    static func number(_ value: JSONValue?) -> Double {
        switch value {
        case .integer(let number)?: Double(number)
        case .double(let number)?: number
        default: -1
        }
    }

    static func log(_ client: TestClient, _ query: String) async throws -> [[String: JSONValue]] {
        let reply = try await client.send(.get, "/admin/1/\(TestServer.container)/logs?\(query)", headers: client.admin)
        guard reply.status == 200 else { throw TestFailure("logs?\(query): \(reply.status) \(reply.json)") }
        return reply["entries"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    @Test("requests on two nodes are charted together: requests, errors by code, latency, notifications, active users and storage")
    func chartsFromEveryNode() async throws {
        try await TestServer.runNodes(2, configure: { $0.telemetryFlushInterval = 0.1 }) { nodes in
            let token = try await nodes[0].createContainer()
            let ann = try await nodes[0].signUp("ann@example.com", token: token)
            let annOnSecond = QuotaAPITests.session(ann, on: nodes[1])
            let subscribed = try await ann.post("public", "subscriptions/modify", #"""
                {"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"query","query":{"recordType":"Note"},"firesOn":["create"]}}]}
                """#)
            #expect(subscribed.status == 200, "\(subscribed.json)")
            let created = try await ann.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"text":{"value":"hi"}}}}]}"#)
            #expect(created.status == 200, "\(created.json)")
            let conflict = try await annOnSecond.post("public", "records/modify", #"{"operations":[{"operationType":"update","record":{"recordName":"n1","recordType":"Note","recordChangeTag":"stale","fields":{"text":{"value":"x"}}}}]}"#)
            #expect(conflict.records.first?["serverErrorCode"] == .string("CONFLICT"), "\(conflict.json)")
            let bad = try await annOnSecond.post("public", "records/modify", #"{"operations":"nope"}"#)
            #expect(bad.status == 400)
            let queried = try await annOnSecond.post("public", "records/query", #"{"query":{"recordType":"Note"}}"#)
            #expect(queried.status == 200)
            _ = try await nodes[0].send(.post, "/admin/1/usage/measure", headers: nodes[0].admin)

            // Sign-up, the subscription, four record calls: six requests to the container, on two nodes.
            let reply = try await Self.telemetry(nodes[1], atLeast: 6, notifications: 1)
            let totals = reply["totals"]?.objectValue ?? [:]
            #expect(totals["requests"]?.integerValue == 6, "\(reply.json)")
            let codes = totals["errorsByCode"]?.objectValue ?? [:]
            #expect(codes["BAD_REQUEST"]?.integerValue == 1 && codes["CONFLICT"]?.integerValue == 1 && totals["errors"]?.integerValue == 2, "\(totals)")
            #expect(Self.number(totals["p50Ms"]) > 0 && Self.number(totals["p99Ms"]) >= Self.number(totals["p50Ms"]), "\(totals)")
            #expect(totals["notifications"]?.integerValue == 1, "\(totals)")
            #expect(reply["points"]?.arrayValue?.count == 60 && reply["stepMinutes"]?.integerValue == 1, "an hour of minutes")
            let today = Int64(Date().timeIntervalSince1970 * 1000) / 86_400_000 * 86_400_000
            let days = reply["activeUsers"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(days.contains { $0["day"]?.integerValue == today && $0["users"]?.integerValue == 1 }, "ann, on both nodes, counts once: \(days)")
            #expect((reply["storage"]?.arrayValue?.count ?? 0) >= 1, "\(reply.json)")

            let week = try await nodes[0].send(.get, "/admin/1/\(TestServer.container)/development/telemetry?range=week", headers: nodes[0].admin)
            #expect(week["stepMinutes"]?.integerValue == 60 && week["totals"]?.objectValue?["requests"]?.integerValue == 6, "\(week.json)")
            let wrong = try await nodes[0].send(.get, "/admin/1/\(TestServer.container)/development/telemetry?range=year", headers: nodes[0].admin)
            #expect(wrong.status == 400 && wrong.errorCode == "BAD_REQUEST")
        }
    }

    @Test("a node restarted under the same name adds to the minute's counts: they agree with the request log")
    func restartedNodeAddsUp() async throws {
        try await TestServer.runNodes(2, configure: { $0.telemetryFlushInterval = 0.1 }, configureNode: { _, configuration in configuration.nodeName = "web-1" }) { nodes in
            let token = try await nodes[0].createContainer()
            let ann = try await nodes[0].signUp("ann@example.com", token: token)
            for _ in 0..<5 { _ = try await ann.post("public", "records/query", #"{"query":{"recordType":"Note"}}"#) }
            // The same node, started again: a process of its own under the same name.
            let again = QuotaAPITests.session(ann, on: nodes[1])
            for _ in 0..<2 { _ = try await again.post("public", "records/query", #"{"query":{"recordType":"Note"}}"#) }
            let reply = try await Self.telemetry(nodes[0], atLeast: 8)
            let logged = try await Self.log(nodes[0], "limit=100")
            #expect(reply["totals"]?.objectValue?["requests"]?.integerValue == 8, "sign-up and seven queries: \(reply["totals"] ?? .null), the log has \(logged.count)")
        }
    }

    @Test("the request log finds requests by user, record type, error code and time, a page at a time; made-up containers are not kept")
    func requestLog() async throws {
        try await TestServer.run(configure: { $0.telemetryFlushInterval = 0.1 }) { client in
            let token = try await client.createContainer()
            let ann = try await client.signUp("ann@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await ann.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"text":{"value":"a"}}}}]}"#)
            _ = try await bob.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Photo","fields":{"text":{"value":"b"}}}}]}"#)
            _ = try await bob.post("public", "records/modify", #"{"operations":[{"operationType":"update","record":{"recordName":"gone","recordType":"Missing","recordChangeTag":"x"}}]}"#)
            _ = try await client.send(.post, "/database/1/iCloud.made.up/development/public/records/query?ckAPIToken=\(token)", body: "{}")
            _ = try await Self.telemetry(client, atLeast: 5)

            let annEntries = try await Self.log(client, "user=\(ann.userRecordName)")
            #expect(annEntries.count == 1 && annEntries.first?["recordTypes"] == .array([.string("Note")]), "\(annEntries)")
            #expect(annEntries.first?["operation"] == .string("public/records/modify") && annEntries.first?["status"]?.integerValue == 200)
            let photos = try await Self.log(client, "recordType=Photo")
            #expect(photos.count == 1 && photos.first?["user"] == .string(bob.userRecordName), "\(photos)")
            let failures = try await Self.log(client, "errorCode=*")
            #expect(failures.map { $0["recordTypes"] } == [.array([.string("Missing")])], "an update of a record that does not exist was refused: \(failures)")
            let all = try await Self.log(client, "environment=development")
            #expect(all.count == 5, "two sign-ups and three record calls: \(all.map { $0["operation"] ?? .null })")
            let page = try await client.send(.get, "/admin/1/\(TestServer.container)/logs?limit=2", headers: client.admin)
            let last = page["entries"]?.arrayValue?.last?.objectValue?["id"]?.integerValue ?? 0
            #expect(page["moreComing"] == .bool(true))
            #expect(try await Self.log(client, "limit=10&before=\(last)").count == 3)
            let newest = all.first?["time"]?.integerValue ?? 0
            #expect(try await Self.log(client, "from=\(newest + 1)").isEmpty)
            let stored = try await client.parts.store.requestLog(containerID: "iCloud.made.up", matching: RequestLogQuery())
            #expect(stored.isEmpty, "requests to a container that does not exist are not logged")
            let bad = try await client.send(.get, "/admin/1/\(TestServer.container)/logs?limit=0", headers: client.admin)
            #expect(bad.status == 400)
        }
    }
}
