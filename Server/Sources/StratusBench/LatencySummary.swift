/// Throughput and latency percentiles of one benchmark scenario.
public struct LatencySummary: Sendable {
    public var name: String
    /// Completed requests.
    public var requests: Int
    /// Units of work per request (records created, records read...), for per-record throughput.
    public var unitsPerRequest: Int
    public var seconds: Double
    public var p50Milliseconds: Double
    public var p99Milliseconds: Double
    public var errors: Int

    /// Requests per second.
    public var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
    /// Units of work per second.
    public var unitsPerSecond: Double { requestsPerSecond * Double(unitsPerRequest) }

    /// Summarizes latencies measured in nanoseconds.
    public init(name: String, latencies: [UInt64], seconds: Double, unitsPerRequest: Int = 1, errors: Int = 0) {
        self.name = name
        self.requests = latencies.count
        self.unitsPerRequest = unitsPerRequest
        self.seconds = seconds
        self.errors = errors
        let sorted = latencies.sorted()
        func percentile(_ fraction: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
            return Double(sorted[max(0, index)]) / 1_000_000
        }
        p50Milliseconds = percentile(0.50)
        p99Milliseconds = percentile(0.99)
    }
}
