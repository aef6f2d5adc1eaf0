import Foundation

/// The figures of one benchmark run, each beside the `/healthz` baseline of the same run.
public struct BenchmarkReport: Sendable {
    public var results: [LatencySummary]
    public var peakServerMemoryBytes: Int?
    /// The local store's first sync beside the raw full sync of the same records.
    public var localStoreSync: LocalStoreFigures?
    /// Offline saves into a local store beside plain SQLite.
    var offlineSaves: OfflineSaves.Figures?

    /// A fresh install's first sync into a local store, against the server's own full sync.
    public struct LocalStoreFigures: Sendable {
        public var fullSyncSeconds: Double
        public var localStoreSeconds: Double
        /// The benchmark process's peak resident memory during the local store's sync (the app's side).
        public var peakMemoryBytes: Int?
    }

    public init(results: [LatencySummary], peakServerMemoryBytes: Int?) {
        self.results = results
        self.peakServerMemoryBytes = peakServerMemoryBytes
    }

    /// A Markdown table: throughput, latency and each figure's ratio to the baseline's throughput.
    public var table: String {
        guard let baseline = results.first else { return offlineSaves?.summary ?? "" }
        var lines = [
            "| scenario | requests/s | records/s | p50 ms | p99 ms | req/s ÷ healthz | errors |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        for result in results {
            let ratio = baseline.requestsPerSecond > 0 ? result.requestsPerSecond / baseline.requestsPerSecond : 0
            lines.append(
                "| \(result.name) | \(Self.format(result.requestsPerSecond)) | \(result.unitsPerRequest == 0 ? "-" : Self.format(result.unitsPerSecond)) "
                    + "| \(String(format: "%.2f", result.p50Milliseconds)) | \(String(format: "%.2f", result.p99Milliseconds)) "
                    + "| \(String(format: "%.3f", ratio)) | \(result.errors) |"
            )
        }
        if let sync = results.first(where: { $0.name.hasPrefix("full changes/zone sync") }) {
            lines.append("")
            lines.append("Full sync took \(String(format: "%.2f", sync.seconds)) s.")
        }
        if let local = localStoreSync {
            let ratio = local.fullSyncSeconds > 0 ? local.localStoreSeconds / local.fullSyncSeconds : 0
            lines.append(
                "First sync into a local store took \(String(format: "%.2f", local.localStoreSeconds)) s, "
                    + "\(String(format: "%.2f", ratio))x the full sync (3.6-4.1x in docs/benchmarks.md: not more)"
                    + (local.peakMemoryBytes.map { "; the app's peak resident memory \($0 / (1024 * 1024)) MB (aim: under 200 MB)" } ?? "") + "."
            )
        }
        if let plain = results.first(where: { $0.name == "create 1 record, no function (16 clients)" }),
            let hooked = results.first(where: { $0.name == HookedCreates.scenario }), plain.requestsPerSecond > 0
        {
            lines.append(
                "Creates with a beforeSave function: \(String(format: "%.2f", hooked.requestsPerSecond / plain.requestsPerSecond))x the rate "
                    + "without one; p50 \(String(format: "%.2f", hooked.p50Milliseconds)) ms against \(String(format: "%.2f", plain.p50Milliseconds)) ms."
            )
        }
        if let offlineSaves {
            lines.append(offlineSaves.summary)
        }
        if let peak = peakServerMemoryBytes {
            lines.append("Server peak resident memory: \(peak / (1024 * 1024)) MB.")
        }
        return lines.joined(separator: "\n")
    }

    private static func format(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : String(format: "%.1f", value)
    }
}
