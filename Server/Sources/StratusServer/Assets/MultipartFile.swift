import StratusServices

/// Takes the file out of a `multipart/form-data` upload body as it streams in.
///
/// Apple's upload URL takes the raw file, but some clients (CloudyKit, OpenCloudKit) post it as a form,
/// and Apple's server stores the file part. A value-type state machine, fed chunk by chunk: it hands back
/// the bytes of the body's first part as soon as they cannot be the start of the boundary, and holds
/// back at most one boundary's length.
struct MultipartFile {
    /// Why a body is not a multipart form this reader can take the file from.
    struct Malformed: Error {
        var reason: String
    }

    private enum State {
        /// Before the first boundary (any preamble is skipped).
        case preamble
        /// After a boundary line, up to the blank line ending the part's headers.
        case headers
        /// In the file part's bytes.
        case content
        /// After the file part: the rest of the body is ignored.
        case done
    }

    /// The longest part header block accepted.
    static let maximumHeaderBytes = RequestLimits.multipartHeaderBytes

    /// `\r\n--boundary`: what ends a part. The body is read as if it began with `\r\n`, so the first
    /// boundary matches it too.
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8] = Array("\r\n".utf8)
    /// The file part's `Content-Type`, once its headers are read.
    private(set) var partContentType: String?

    /// A reader for a body whose `Content-Type` is `multipart/form-data`; `nil` for any other body.
    /// - Throws: ``Malformed`` for a multipart type without a boundary.
    init?(contentType: String?) throws(Malformed) {
        guard let contentType else { return nil }
        let parameters = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let type = parameters.first, type.lowercased() == "multipart/form-data" else { return nil }
        guard let parameter = parameters.dropFirst().first(where: { $0.lowercased().hasPrefix("boundary=") }) else {
            throw Malformed(reason: "a multipart/form-data upload needs a boundary in its Content-Type")
        }
        var boundary = parameter.dropFirst("boundary=".count)
        if boundary.hasPrefix("\""), boundary.hasSuffix("\""), boundary.count >= 2 {
            boundary = boundary.dropFirst().dropLast()
        }
        guard (1...70).contains(boundary.utf8.count) else {
            throw Malformed(reason: "the multipart boundary must have 1 to 70 characters")
        }
        delimiter = Array("\r\n--\(boundary)".utf8)
    }

    /// Feeds the next bytes of the body; returns the file's bytes among them.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws(Malformed) -> [UInt8] {
        if state == .done { return [] }
        pending.append(contentsOf: bytes)
        var output: [UInt8] = []
        while true {
            switch state {
            case .preamble:
                guard let end = Self.range(of: delimiter, in: pending) else {
                    pending.removeFirst(max(0, pending.count - delimiter.count + 1))
                    return output
                }
                pending.removeFirst(end.upperBound)
                state = .headers
            case .headers:
                let separator = Array("\r\n\r\n".utf8)
                guard let end = Self.range(of: separator, in: pending) else {
                    guard pending.count <= Self.maximumHeaderBytes else {
                        throw Malformed(reason: "the multipart part's headers are longer than \(Self.maximumHeaderBytes) bytes")
                    }
                    return output
                }
                // The boundary line may carry transport padding; the headers start on the next line.
                let lines = String(decoding: pending[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n").dropFirst()
                partContentType = lines.first { $0.lowercased().hasPrefix("content-type:") }
                    .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
                pending.removeFirst(end.upperBound)
                state = .content
            case .content:
                if let end = Self.range(of: delimiter, in: pending) {
                    output += pending[..<end.lowerBound]
                    pending = []
                    state = .done
                    return output
                }
                let safe = max(0, pending.count - delimiter.count + 1)
                output += pending[..<safe]
                pending.removeFirst(safe)
                return output
            case .done:
                return output
            }
        }
    }

    /// Checks the body ended after its file part.
    mutating func finish() throws(Malformed) {
        guard state == .done else {
            throw Malformed(reason: state == .preamble
                ? "the multipart/form-data body has no part with the boundary its Content-Type names"
                : "the multipart/form-data body ended before the boundary closing its file part")
        }
    }

    /// Where `needle` first occurs in `haystack`: a scan for its first byte, then a comparison.
    private static func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var start = 0
        let last = haystack.count - needle.count
        while start <= last, let candidate = haystack[start...last].firstIndex(of: first) {
            if haystack[candidate..<candidate + needle.count].elementsEqual(needle) {
                return candidate..<candidate + needle.count
            }
            start = candidate + 1
        }
        return nil
    }
}
