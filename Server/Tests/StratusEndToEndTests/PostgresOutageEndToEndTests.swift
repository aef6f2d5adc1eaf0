import Foundation
import StratusStoreTesting
import Testing

/// `stratus serve` on a PostgreSQL cluster of the test's own, which the test crashes (`pg_ctl stop -m immediate`)
/// and starts again.
@Suite(.serialized) struct PostgresOutageEndToEndTests {
    @Test("while PostgreSQL is down requests and /readyz get 503 with retryAfter, at once after the first, and /healthz answers; afterwards the server recovers alone, and every acknowledged write survived the crash of the database and of the server")
    func outageAndRecovery() async throws {
        guard let cluster = try await PrivateCluster.start() else { return }
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--database", cluster.url, "--quiet"])
        try await server.start()
        defer { server.stop() }

        let apiToken = try await server.createContainer("iCloud.com.example.Outage")
        let (_, user) = try await server.send(
            "POST", "/auth/1/iCloud.com.example.Outage/development/signup?ckAPIToken=\(apiToken)",
            body: #"{"emailAddress":"outage@example.com","password":"long password"}"#
        )
        let webToken = try #require(user["ckWebAuthToken"] as? String).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let database = "/database/1/iCloud.com.example.Outage/development/private"
        let query = "ckAPIToken=\(apiToken)&ckWebAuthToken=\(webToken)"
        let (zoneStatus, _) = try await server.send("POST", "\(database)/zones/modify?\(query)", body: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
        #expect(zoneStatus == 200)
        func save(_ names: Range<Int>) async throws -> (Int, [String: Any]) {
            let operations = names.map { #"{"operationType":"create","record":{"recordName":"n\#($0)","recordType":"Note","fields":{"i":{"value":\#($0)}}}}"# }
            return try await server.send("POST", "\(database)/records/modify?\(query)", body: #"{"zoneID":{"zoneName":"Notes"},"operations":[\#(operations.joined(separator: ","))]}"#)
        }
        #expect(try await save(0..<20).0 == 200)
        #expect(try await server.send("GET", "/readyz").0 == 200)

        try await cluster.crash()
        let start = ContinuousClock.now
        let (down, refusal) = try await save(20..<21)
        #expect(down == 503)
        #expect(refusal["serverErrorCode"] as? String == "TRY_AGAIN_LATER")
        #expect(refusal["retryAfter"] != nil)
        // No hang: the first call gives up after the 5-second connection wait, and the store finds the database down
        // (on two cores busy with hundreds of tests the answer may take a few seconds more than the wait).
        let firstTook = ContinuousClock.now - start
        #expect(firstTook < .seconds(20), "answered within 20 seconds")
        let again = ContinuousClock.now
        let (stillDown, _) = try await save(21..<22)
        #expect(stillDown == 503)
        // At once (within a connection wait, 5 s), or, on a loaded machine where the first call failed fast on a
        // broken connection before the store's check concluded, within one connection wait more than the first.
        let secondTook = ContinuousClock.now - again
        #expect(
            secondTook < .seconds(5) || secondTook < firstTook + .seconds(5),
            "once the database is known to be down, requests are answered at once (the first took \(firstTook), the second \(secondTook))"
        )
        #expect(try await server.send("GET", "/healthz").0 == 200)
        let readyStart = ContinuousClock.now
        let (readiness, notReady) = try await server.send("GET", "/readyz")
        #expect(readiness == 503)
        #expect(notReady["retryAfter"] != nil)
        #expect((notReady["reason"] as? String)?.contains("the database") == true, "\(notReady)")
        #expect(ContinuousClock.now - readyStart < .seconds(5), "a readiness check answers within its deadline")

        try await cluster.restart()
        var recovered = false
        for _ in 0..<60 where !recovered {
            recovered = try await save(20..<21).0 == 200
            if !recovered { try await Task.sleep(for: .milliseconds(500)) }
        }
        #expect(recovered, "the server works again once the database is back, without a restart")
        #expect(try await server.send("GET", "/readyz").0 == 200)

        server.kill()
        let restarted = ServerProcess(dataFolder: folder, arguments: ["--database", cluster.url, "--quiet"])
        try await restarted.start()
        defer { restarted.stop() }
        let (status, changes) = try await restarted.send("POST", "\(database)/changes/zone?\(query)", body: #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#)
        #expect(status == 200)
        let records = try #require(((changes["zones"] as? [[String: Any]])?.first?["records"]) as? [[String: Any]])
        #expect(Set(records.compactMap { $0["recordName"] as? String }) == Set((0..<21).map { "n\($0)" }))
    }
}

/// A PostgreSQL cluster for one test, from `.ci/postgres-cluster`, stopped when the test process ends.
struct PrivateCluster {
    let url: String
    let folder: String

    /// Starts the cluster; `nil` (the test does not run, and says why) when PostgreSQL cannot be had outside CI.
    static func start() async throws -> PrivateCluster? {
        let note = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: note) }
        let (status, output) = try await script(["--until-pid", String(ProcessInfo.processInfo.processIdentifier), "--folder-out", note])
        guard status == 0, let folder = try? String(contentsOfFile: note, encoding: .utf8) else {
            let reason = "no PostgreSQL cluster of its own: \(output)"
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw E2EFailure(reason) }
            print("not run: \(reason)")
            return nil
        }
        let url = output.split(separator: "\n").last.map(String.init) ?? ""
        return PrivateCluster(url: url, folder: folder.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Stops the cluster at once, as a crash would: nothing is flushed beyond what commits flushed.
    func crash() async throws {
        let (status, output) = try await Self.script(["crash", folder])
        guard status == 0 else { throw E2EFailure("the cluster did not stop: \(output)") }
    }

    /// Starts the cluster again on its port.
    func restart() async throws {
        let (status, output) = try await Self.script(["start", folder])
        guard status == 0 else { throw E2EFailure("the cluster did not start again: \(output)") }
    }

    private static func script(_ arguments: [String]) async throws -> (Int32, String) {
        let (status, output) = try await ChildProcess.run("/bin/bash", [Repository.path(".ci/postgres-cluster")] + arguments)
        return (status, output.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
