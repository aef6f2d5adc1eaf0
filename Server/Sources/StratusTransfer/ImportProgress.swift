import Foundation

/// The progress lines of an import: records per type and overall, bytes, rate and time left.
struct ImportProgress {
    private let started = ContinuousClock.now
    /// Records and bytes copied by this run (not by earlier runs of a resumed import).
    private(set) var records = 0
    private(set) var bytes: Int64 = 0

    mutating func add(records: Int, bytes: Int64) {
        self.records += records
        self.bytes += bytes
    }

    /// Records per second in this run.
    var rate: Double {
        let elapsed = started.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(records) / seconds : 0
    }

    /// `Note: 35/50 · all types 120/400 (30%) · 2.1 MB · 85 records/s · about 3 s left`
    func line(recordType: String, typeDone: Int, typeTotal: Int?, allDone: Int, allTotal: Int?) -> String {
        var parts = ["\(recordType): \(typeDone)" + (typeTotal.map { "/\($0)" } ?? "")]
        if let allTotal, allTotal > 0 {
            parts.append("all types \(allDone)/\(allTotal) (\(allDone * 100 / allTotal)%)")
        }
        parts.append(Self.size(bytes))
        parts.append(String(format: "%.0f records/s", rate))
        if let allTotal, rate > 0 {
            parts.append("about \(Self.duration(Double(max(0, allTotal - allDone)) / rate)) left")
        }
        return parts.joined(separator: " · ")
    }

    static func size(_ bytes: Int64) -> String {
        if bytes < 1024 * 1024 { return String(format: "%.1f kB", Double(bytes) / 1024) }
        return String(format: "%.1f MB", Double(bytes) / 1024 / 1024)
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 90 { return "\(Int(seconds.rounded())) s" }
        if seconds < 5400 { return "\(Int((seconds / 60).rounded())) min" }
        return String(format: "%.1f h", seconds / 3600)
    }
}
