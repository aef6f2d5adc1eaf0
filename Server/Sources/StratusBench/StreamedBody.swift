/// The body of a response that keeps streaming (server-sent events), decoded as its bytes arrive: the head is
/// skipped, and chunked transfer encoding removed, so that an event a proxy split across chunks reads whole.
struct StreamedBody {
    private var raw: [UInt8] = []
    private var headRead = false
    private var chunked = false
    /// Body bytes still to come in the current chunk.
    private var remainingInChunk = 0
    /// The line end after a chunk's data, still to skip.
    private var lineEndToSkip = 0

    /// Takes the next bytes read from the connection and answers the body bytes they complete.
    mutating func feed(_ bytes: [UInt8]) -> [UInt8] {
        raw += bytes
        if !headRead {
            guard let end = Self.find([13, 10, 13, 10], in: raw) else { return [] }
            let head = String(decoding: raw[..<end], as: UTF8.self).lowercased()
            chunked = head.contains("transfer-encoding: chunked")
            raw.removeFirst(end + 4)
            headRead = true
        }
        guard chunked else {
            defer { raw = [] }
            return raw
        }
        var body: [UInt8] = []
        while true {
            if lineEndToSkip > 0 {
                let skipped = min(lineEndToSkip, raw.count)
                raw.removeFirst(skipped)
                lineEndToSkip -= skipped
                if lineEndToSkip > 0 { break }
            }
            if remainingInChunk > 0 {
                let taken = min(remainingInChunk, raw.count)
                body += raw[..<taken]
                raw.removeFirst(taken)
                remainingInChunk -= taken
                if remainingInChunk > 0 { break }
                lineEndToSkip = 2
                continue
            }
            guard let lineEnd = Self.find([13, 10], in: raw) else { break }
            let sizeText = String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            raw.removeFirst(lineEnd + 2)
            guard let size = Int(String(sizeText.filter { $0 != " " }), radix: 16), size > 0 else { break }
            remainingInChunk = size
        }
        return body
    }

    private static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for index in 0...(bytes.count - pattern.count) where bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
            return index
        }
        return nil
    }
}
