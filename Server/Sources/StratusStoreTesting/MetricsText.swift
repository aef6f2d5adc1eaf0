/// Reading Prometheus's text format (`GET /metrics`), for tests that wait on a node's gauges.
public enum MetricsText {
    /// The sample line of the series `name` (its first, whatever its labels), or `nil` when `text` has none.
    public static func line(of name: String, in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(name + "{") || $0.hasPrefix(name + " ") }.map(String.init)
    }

    /// The value of the series `name`, or `nil` when `text` has none.
    public static func value(of name: String, in text: String) -> Double? {
        line(of: name, in: text)?.split(separator: " ").last.flatMap { Double($0) }
    }
}
