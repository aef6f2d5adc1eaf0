import Foundation
import Testing

/// `stratus bench` against a `stratus serve` process: the sync scenarios, including a fresh install's first sync
/// into StratusKit's local store, report their figures beside each other.
@Suite(.serialized) struct BenchEndToEndTests {
    @Test("stratus bench --sync-only seeds the dataset, syncs it raw and into a local store, and prints both with their ratio")
    func syncScenarios() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder)
        try await server.start()
        defer { server.stop() }
        let (status, output) = try await EndToEndTests.run([
            "bench", "--url", server.baseURL, "--admin-key", ServerProcess.adminKey, "--records", "1000", "--seconds", "0.5", "--sync-only",
        ])
        #expect(status == 0, "\(output)")
        #expect(output.contains("| full changes/zone sync (1000 records) |"), "\(output)")
        #expect(output.contains("| first sync into the local store (1000 records) |"), "\(output)")
        let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("First sync into a local store took") }, "\(output)")
        #expect(line.contains("x the full sync (3.6-4.1x in docs/benchmarks.md: not more)") && line.contains("peak resident memory"), "\(line)")
    }

    @Test("stratus bench --webhooks-only times webhooks from the save to the receiver, and says so when the server refuses loopback targets")
    func webhookScenario() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--webhooks-allow-private"])
        try await server.start()
        defer { server.stop() }
        let (status, output) = try await EndToEndTests.run([
            "bench", "--url", server.baseURL, "--admin-key", ServerProcess.adminKey, "--records", "1000", "--seconds", "0.5", "--webhooks-only",
        ])
        #expect(status == 0, "\(output)")
        let line = try #require(output.split(separator: "\n").first { $0.contains("webhook delivery, save to receipt (1 client)") }, "\(output)")
        // | scenario | requests/s | records/s | p50 ms | p99 ms | req/s ÷ healthz | errors |
        let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        let p50 = Double(cells[3]) ?? 0
        let p99 = Double(cells[4]) ?? 0
        #expect(p50 > 0 && p99 >= p50 && cells[6] == "0", "\(line)")

        let refusing = ServerProcess(dataFolder: EndToEndTests.temporaryFolder(), arguments: ["--quiet"])
        try await refusing.start()
        defer { refusing.stop() }
        let (refusedStatus, refusedOutput) = try await EndToEndTests.run([
            "bench", "--url", refusing.baseURL, "--admin-key", ServerProcess.adminKey, "--records", "1000", "--seconds", "0.5", "--webhooks-only",
        ])
        #expect(refusedStatus == 0 && refusedOutput.contains("webhook latency: not measured"), "\(refusedOutput)")
    }

    @Test("stratus bench --hooks-only reports creates with and without a beforeSave function, and their ratio")
    func hookScenario() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let (status, output) = try await EndToEndTests.run([
            "bench", "--url", server.baseURL, "--admin-key", ServerProcess.adminKey, "--records", "1000", "--seconds", "0.5", "--hooks-only",
        ])
        #expect(status == 0, "\(output)")
        for scenario in ["create 1 record, no function (16 clients)", "create 1 record, beforeSave function checks 2 fields (16 clients)"] {
            let line = try #require(output.split(separator: "\n").first { $0.contains(scenario) }, "\(output)")
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect((Double(cells[1]) ?? 0) > 0 && cells[6] == "0", "\(line)")
        }
        #expect(output.contains("Creates with a beforeSave function: "), "\(output)")
    }
}
