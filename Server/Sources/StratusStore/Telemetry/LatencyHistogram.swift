import Foundation

/// Latencies counted in buckets growing by a fifth from 1 µs (bucket `i` holds what is at most `1.2^i` µs), so that
/// minutes from several nodes merge by adding counts and quantiles come out within a fifth of the true value.
public struct LatencyHistogram: Sendable, Hashable {
    /// Counts per bucket, of the buckets that have any.
    public private(set) var counts: [Int: Int64]
    public private(set) var total: Int64

    private static let growth = 1.2
    /// Buckets up to about three hours.
    static let bucketCount = 128

    public init() {
        counts = [:]
        total = 0
    }

    public mutating func add(microseconds: Int64) {
        counts[Self.bucket(of: microseconds), default: 0] += 1
        total += 1
    }

    public mutating func merge(_ other: LatencyHistogram) {
        for (bucket, count) in other.counts { counts[bucket, default: 0] += count }
        total += other.total
    }

    /// The upper bound in microseconds of the bucket holding the `q` quantile, or `nil` when there is nothing.
    public func quantile(_ q: Double) -> Int64? {
        guard total > 0 else { return nil }
        let rank = max(1, Int64((Double(total) * q).rounded(.up)))
        var seen: Int64 = 0
        for bucket in counts.keys.sorted() {
            seen += counts[bucket] ?? 0
            if seen >= rank { return Self.upperBound(of: bucket) }
        }
        return Self.upperBound(of: Self.bucketCount - 1)
    }

    static func bucket(of microseconds: Int64) -> Int {
        guard microseconds > 1 else { return 0 }
        return min(bucketCount - 1, Int((log(Double(microseconds)) / log(growth)).rounded(.up)))
    }

    static func upperBound(of bucket: Int) -> Int64 {
        Int64(pow(growth, Double(bucket)).rounded(.down))
    }

    /// As stored: `bucket:count` pairs, comma-separated, in bucket order.
    public var encoded: String {
        counts.keys.sorted().map { "\($0):\(counts[$0] ?? 0)" }.joined(separator: ",")
    }

    /// From its stored form; pairs that cannot be read are left out.
    public init(encoded: String) {
        self.init()
        for pair in encoded.split(separator: ",") {
            let parts = pair.split(separator: ":")
            guard parts.count == 2, let bucket = Int(parts[0]), (0..<Self.bucketCount).contains(bucket), let count = Int64(parts[1]), count > 0 else {
                continue
            }
            counts[bucket, default: 0] += count
            total += count
        }
    }
}
