import Foundation

/// Latencies counted in buckets growing by √2 from 1 µs (bucket `i` holds `2^(i/2)` up to `2^((i+1)/2)` µs), so that
/// minutes from several nodes merge by adding counts and quantiles come out within a fifth of the true value.
public struct LatencyHistogram: Sendable, Hashable {
    /// Counts per bucket; trailing empty buckets are left out.
    public private(set) var counts: [Int64]

    /// Buckets up to about 50 minutes.
    static let bucketCount = 64

    public init(counts: [Int64] = []) {
        self.counts = Array(counts.prefix(Self.bucketCount))
    }

    public var total: Int64 { counts.reduce(0, +) }

    public mutating func add(microseconds: Int64) {
        let index = microseconds <= 1 ? 0 : min(Self.bucketCount - 1, Int(2 * log2(Double(microseconds))))
        if counts.count <= index { counts += Array(repeating: 0, count: index + 1 - counts.count) }
        counts[index] += 1
    }

    public mutating func merge(_ other: LatencyHistogram) {
        if counts.count < other.counts.count { counts += Array(repeating: 0, count: other.counts.count - counts.count) }
        for (index, count) in other.counts.enumerated() { counts[index] += count }
    }

    /// The latency in microseconds below which a fraction `q` of the requests fall (the middle of its bucket), or
    /// `nil` when there are none.
    public func quantile(_ q: Double) -> Double? {
        let total = total
        guard total > 0 else { return nil }
        let rank = max(1, Int64((Double(total) * q).rounded(.up)))
        var seen: Int64 = 0
        for (index, count) in counts.enumerated() {
            seen += count
            if seen >= rank { return pow(2, (Double(index) + 0.5) / 2) }
        }
        return pow(2, (Double(counts.count) - 0.5) / 2)
    }

    /// As stored: the counts as a JSON array.
    public var encoded: String { "[" + counts.map(String.init).joined(separator: ",") + "]" }

    /// From its stored form; an unreadable one is empty.
    public init(encoded: String) {
        let digits = encoded.trimmingCharacters(in: CharacterSet(charactersIn: "[] "))
        self.init(counts: digits.isEmpty ? [] : digits.split(separator: ",").map { Int64($0.trimmingCharacters(in: .whitespaces)) ?? 0 })
    }
}
