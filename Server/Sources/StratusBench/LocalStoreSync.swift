import Foundation
import StratusKit
import StratusLocalStore

/// A fresh install's first sync of the dataset into an app's local store (``LocalStore``, a SQLite file), through
/// StratusKit's sync engine, timed beside the raw `changes/zone` sync of the same records, with the resident memory
/// the sync took.
struct LocalStoreSync {
    let options: Benchmark.Options
    let session: BenchSession

    /// The sync's summary (one "request" per page of 200), and the process's peak resident memory during it.
    func run() async throws -> (summary: LatencySummary, peakMemoryBytes: Int?) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        guard let url = URL(string: "http://\(options.host):\(options.port)") else { throw BenchError("no server address") }
        let container = Container(
            identifier: session.containerID, serverURL: url, apiToken: session.apiToken, webAuthToken: session.webAuthToken
        )
        let memory = MemorySampler(pid: getpid())
        memory.resetPeak()
        let start = ContinuousClock.now
        let store = try await LocalStore.open(
            file: folder.appendingPathComponent("app.sqlite"), database: container.privateCloudDatabase, automaticallySync: false
        )
        await store.engine.setScope(SyncScope(zoneIDs: [Zone.ID(zoneName: "Dataset")]))
        try await store.engine.fetchChanges()
        let elapsed = Benchmark.seconds(ContinuousClock.now - start)
        let kept = try await store.count(ofType: "Item")
        guard kept == options.datasetSize else { throw BenchError("the local store kept \(kept) of \(options.datasetSize) records") }
        let pages = max(1, (kept + 199) / 200)
        let perPage = UInt64(elapsed * 1_000_000_000) / UInt64(pages)
        let summary = LatencySummary(
            name: "first sync into the local store (\(kept) records)", latencies: Array(repeating: perPage, count: pages), seconds: elapsed,
            unitsPerRequest: kept / pages
        )
        return (summary, memory.peakBytes)
    }
}
