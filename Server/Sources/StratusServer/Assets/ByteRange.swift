import StratusServices
import Foundation

/// A `Range: bytes=...` request header (RFC 9110 §14.1.2), resolved against a file's size.
enum ByteRange: Equatable {
    /// No usable range: answer the whole file (no header, another unit, several ranges, bad syntax).
    case whole
    /// Answer these bytes (inclusive) with 206.
    case part(ClosedRange<Int64>)
    /// The range lies outside the file: answer 416.
    case unsatisfiable

    init(header: String?, size: Int64) {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let sides = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard sides.count == 2 else {
            self = .whole
            return
        }
        let first = sides[0].trimmingCharacters(in: .whitespaces)
        let last = sides[1].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            // A suffix: the last N bytes.
            guard let count = Int64(last), count >= 0 else {
                self = .whole
                return
            }
            self = count == 0 || size == 0 ? .unsatisfiable : .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Int64(first), start >= 0 else {
            self = .whole
            return
        }
        var end = size - 1
        if !last.isEmpty {
            guard let requested = Int64(last), requested >= start else {
                self = .whole
                return
            }
            end = min(requested, size - 1)
        }
        self = start >= size ? .unsatisfiable : .part(start...end)
    }
}
