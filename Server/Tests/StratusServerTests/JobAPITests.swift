import Foundation
import StratusModel
import StratusStore
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Scheduled jobs: run once per due time across nodes, calling a function or a webhook endpoint; runs missed while
/// no node was up run once or are skipped, as the job says.
@Suite struct JobAPITests {
    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Ticker;
            RECORD TYPE Tick (at STRING, missedRuns INT64, GRANT READ TO "_world", GRANT CREATE, WRITE TO Ticker);
        """

    /// The container, the schema, the `tally` function (trigger `schedule`, role Ticker) and a webhook endpoint.
    static func prepare(_ client: TestClient, receiver: WebhookReceiver) async throws -> (apiToken: String, endpoint: String) {
        let token = try await client.createContainer()
        _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: Self.schema, headers: client.admin)
        _ = try await client.sendBytes(
            .put, "/admin/1/\(TestServer.container)/development/functions/modules/ticks", try WasmModules.example("tally"), headers: client.admin
        )
        let bound = try await client.send(
            .put, "/admin/1/\(TestServer.container)/development/functions/tally", body: #"{"module":"ticks","trigger":"schedule","runAsRole":"Ticker","limits":{"seconds":30}}"#,
            headers: client.admin
        )
        guard bound.status == 201 else { throw TestFailure("function: \(bound.json)") }
        let made = try await client.send(
            .post, "/admin/1/\(TestServer.container)/development/webhooks", body: #"{"url":"\#(receiver.url)","eventTypes":["job.run"]}"#,
            headers: client.admin
        )
        guard let endpoint = made.string("id") else { throw TestFailure("webhook: \(made.json)") }
        return (token, endpoint)
    }

    static func runs(_ client: TestClient, _ job: String) async throws -> [[String: JSONValue]] {
        let reply = try await client.send(.get, "/admin/1/\(TestServer.container)/development/jobs/\(job)/runs?limit=100", headers: client.admin)
        return (reply["runs"]?.arrayValue ?? []).compactMap(\.objectValue)
    }

    @Test("three nodes run an every-second job once per second: one run, one Tick record and one webhook event per due time")
    func oncePerTickAcrossNodes() async throws {
        let receiver = try WebhookReceiver()
        try await TestServer.runNodes(3, configure: { configuration in
            configuration.webhooksAllowPrivate = true
            configuration.webhookPollInterval = 0.1
            configuration.jobPollInterval = 0.2
        }) { nodes in
            let (token, endpoint) = try await Self.prepare(nodes[0], receiver: receiver)
            let everySecond = try await nodes[1].send(
                .put, "/admin/1/\(TestServer.container)/development/jobs/tick", body: #"{"schedule":"* * * * * *","function":"tally"}"#,
                headers: nodes[1].admin
            )
            #expect(everySecond.status == 201 && everySecond["function"] == .string("tally"), "\(everySecond.json)")
            let webhook = try await nodes[2].send(
                .put, "/admin/1/\(TestServer.container)/development/jobs/ping", body: #"{"schedule":"* * * * * *","webhook":"\#(endpoint)"}"#,
                headers: nodes[2].admin
            )
            #expect(webhook.status == 201, "\(webhook.json)")
            var runs: [[String: JSONValue]] = []
            try await Polling.until("six runs succeed", within: 90, every: .milliseconds(200)) {
                runs = try await Self.runs(nodes[0], "tick").filter { $0["status"] == .string("succeeded") }
                return runs.count >= 6
            } describe: {
                "\(runs)"
            }
            _ = try await nodes[0].send(.delete, "/admin/1/\(TestServer.container)/development/jobs/tick", headers: nodes[0].admin)
            _ = try await nodes[0].send(.delete, "/admin/1/\(TestServer.container)/development/jobs/ping", headers: nodes[0].admin)
            let times = runs.compactMap { $0["scheduledFor"]?.integerValue }
            #expect(Set(times).count == times.count && times.allSatisfy { $0 % 1000 == 0 }, "one run per second: \(times)")

            let user = try await nodes[0].signUp("ann@example.com", token: token)
            let ticks = try await user.anonymous.post("public", "records/query", #"{"query":{"recordType":"Tick"},"resultsLimit":200}"#)
            let tickNames = Set(ticks.records.compactMap { $0["recordName"]?.stringValue })
            #expect(tickNames.count >= runs.count, "a Tick record for every run: \(tickNames.count) records, \(runs.count) runs")

            try await receiver.waitUntil("webhook job events") { $0.count >= 3 }
            let events = receiver.received.map { (($0.json["data"] as? [String: Any])?["scheduledFor"] as? String) ?? "?" }
            #expect(Set(events).count == events.count, "one event per due time: \(events)")
            #expect(Set(receiver.received.map(\.id)).count == receiver.received.count, "one webhook-id per due time")
            #expect(receiver.received.allSatisfy { $0.json["type"] as? String == "job.run" })
        }
    }

    @Test("a due time missed while no node was up runs once or is skipped, as the job says; the console's list shows the runs")
    func missedRuns() async throws {
        let receiver = try WebhookReceiver()
        try await TestServer.run(configure: { configuration in
            configuration.webhooksAllowPrivate = true
            configuration.jobPollInterval = 0.2
        }) { client in
            let (_, endpoint) = try await Self.prepare(client, receiver: receiver)
            let store = client.parts.store
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            // Yearly jobs whose due time passed ten minutes ago, as if every node had been down since.
            for (name, policy) in [("catchUp", ScheduledJob.MissedRuns.runOnce), ("dropIt", .skip)] {
                try await store.saveScheduledJob(ScheduledJob(
                    containerID: TestServer.container, environment: .development, name: name, schedule: "0 0 1 1 *", target: .function("tally"),
                    missedRuns: policy, nextRunAt: now - 600_000, createdAt: now, updatedAt: now
                ))
            }
            try await store.saveScheduledJob(ScheduledJob(
                containerID: TestServer.container, environment: .development, name: "pingLate", schedule: "0 0 1 1 *", target: .webhook(endpointID: endpoint),
                nextRunAt: now - 600_000, createdAt: now, updatedAt: now
            ))
            var listed: [[String: JSONValue]] = []
            try await Polling.until("the three jobs' runs end", within: 60, every: .milliseconds(100)) {
                let reply = try await client.send(.get, "/admin/1/\(TestServer.container)/jobs", headers: client.admin)
                listed = (reply["jobs"]?.arrayValue ?? []).compactMap(\.objectValue)
                let finished = listed.filter { job in
                    job["lastRuns"]?.arrayValue?.first?.objectValue?["status"].map { $0 != .string("running") } ?? false
                }
                return finished.count == 3
            } describe: {
                "\(listed)"
            }
            func lastRun(_ name: String) -> [String: JSONValue]? {
                listed.first { $0["name"] == .string(name) }?["lastRuns"]?.arrayValue?.first?.objectValue
            }
            #expect(lastRun("catchUp")?["status"] == .string("succeeded") && lastRun("catchUp")?["missedRuns"] == .integer(1), "\(listed)")
            #expect(lastRun("dropIt")?["status"] == .string("skipped") && lastRun("dropIt")?["missedRuns"] == .integer(1), "\(listed)")
            #expect(lastRun("pingLate")?["status"] == .string("queued"), "\(listed)")
            let next = listed.first { $0["name"] == .string("catchUp") }?["nextRun"]?.integerValue ?? 0
            #expect(next > now, "the next run is the schedule's next time: \(next)")
            try await receiver.waitUntil("the late job's event") { $0.count >= 1 }
            #expect((receiver.received.first?.json["data"] as? [String: Any])?["missedRuns"] as? Int == 1)
        }
    }

    @Test("jobs are checked: a valid schedule, and a function with the trigger schedule or a webhook of the environment")
    func checks() async throws {
        let receiver = try WebhookReceiver()
        try await TestServer.run(configure: { $0.webhooksAllowPrivate = true }) { client in
            _ = try await Self.prepare(client, receiver: receiver)
            let path = "/admin/1/\(TestServer.container)/development/jobs/j"
            for body in [
                #"{"schedule":"61 * * * *","function":"tally"}"#, #"{"schedule":"0 0 30 2 *","function":"tally"}"#,
                #"{"schedule":"@daily","function":"missing"}"#, #"{"schedule":"@daily"}"#, #"{"schedule":"@daily","webhook":"wh_none"}"#,
                #"{"schedule":"@daily","function":"tally","timeZone":"Nowhere/City"}"#,
            ] {
                let reply = try await client.send(.put, path, body: body, headers: client.admin)
                #expect(reply.status == 400, "\(body) → \(reply.json)")
            }
            let made = try await client.send(.put, path, body: #"{"schedule":"30 4 * * mon","function":"tally","timeZone":"Europe/Paris"}"#, headers: client.admin)
            #expect(made.status == 201 && made["timeZone"] == .string("Europe/Paris") && made["missedRuns"] == .string("runOnce"), "\(made.json)")
        }
    }
}
