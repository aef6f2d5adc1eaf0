import Foundation

/// Sizes as people write them: `50MB`, `512KB`, `2GB` or a plain number of bytes (units are powers of 1024), read
/// alike by the command line, its settings and the admin API.
public enum ByteSize {
    private static let units: [(suffix: String, factor: Int64)] = [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)]

    /// The bytes `text` names; `nil` when it is not a size.
    public static func parse(_ text: String) -> Int64? {
        let upper = text.uppercased().trimmingCharacters(in: .whitespaces)
        for (suffix, factor) in units + [("B", 1)] where upper.hasSuffix(suffix) {
            guard let number = Int64(upper.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)) else { return nil }
            let (bytes, overflow) = number.multipliedReportingOverflow(by: factor)
            return overflow ? nil : bytes
        }
        return Int64(upper)
    }

    /// `bytes` as people write it: `50MB`, `1GB`, `512KB`, or a plain number of bytes.
    public static func text(_ bytes: Int64) -> String {
        for (suffix, factor) in units where bytes % factor == 0 && bytes >= factor {
            return "\(bytes / factor)\(suffix)"
        }
        return "\(bytes)"
    }
}
