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
        #expect(line.contains("x the full sync (aim: at most 2x)") && line.contains("peak resident memory"), "\(line)")
    }
}
