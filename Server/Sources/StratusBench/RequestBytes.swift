/// Builds the bytes of an HTTP/1.1 request with a JSON body.
enum RequestBytes {
    static func make(_ method: String, _ path: String, host: String, body: String = "", headers: [(String, String)] = []) -> [UInt8] {
        var request: [UInt8] = []
        request.reserveCapacity(256 + body.utf8.count)
        request += method.utf8
        request.append(0x20)
        request += path.utf8
        request += " HTTP/1.1\r\nHost: ".utf8
        request += host.utf8
        request += "\r\nContent-Type: application/json\r\nContent-Length: ".utf8
        request += String(body.utf8.count).utf8
        request += "\r\n".utf8
        for (name, value) in headers {
            request += name.utf8
            request += ": ".utf8
            request += value.utf8
            request += "\r\n".utf8
        }
        request += "\r\n".utf8
        request += body.utf8
        return request
    }
}

/// Finds complete HTTP/1.1 responses in received bytes.
enum ResponseParser {
    /// A complete response at the start of `bytes`: its status, where its body lies, its total length, and
    /// whether the server closes the connection after it (`Connection: close`, as a proxy does now and then).
    struct Parsed {
        var status: Int
        var body: Range<Int>
        var length: Int
        var closes = false
    }

    /// The response at the start of `bytes[0..<count]`, or `nil` if it is not complete yet.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> Parsed? {
        guard let headerEnd = find(bytes) else { return nil }
        var index = 0
        while index < headerEnd && bytes[index] != 0x20 { index += 1 }
        guard index + 3 < headerEnd else { return nil }
        let status = Int(bytes[index + 1] &- 48) * 100 + Int(bytes[index + 2] &- 48) * 10 + Int(bytes[index + 3] &- 48)
        let bodyStart = headerEnd + 4
        let length = contentLength(bytes, headerEnd: headerEnd)
        guard bytes.count >= bodyStart + length else { return nil }
        var closes = false
        if var cursor = valueStart(of: Array("connection:".utf8), bytes, headerEnd: headerEnd) {
            closes = true
            for letter in "close".utf8 {
                guard cursor < headerEnd, bytes[cursor] | 0x20 == letter else { closes = false; break }
                cursor += 1
            }
        }
        return Parsed(status: status, body: bodyStart..<(bodyStart + length), length: bodyStart + length, closes: closes)
    }

    private static func find(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    /// The Content-Length header's value.
    private static func contentLength(_ bytes: UnsafeRawBufferPointer, headerEnd: Int) -> Int {
        guard var cursor = valueStart(of: Array("content-length:".utf8), bytes, headerEnd: headerEnd) else { return 0 }
        var value = 0
        while bytes[cursor] >= 48 && bytes[cursor] <= 57 {
            value = value * 10 + Int(bytes[cursor] - 48)
            cursor += 1
        }
        return value
    }

    /// Where the value of the header `name` (lowercase, with its colon) begins, matched case-insensitively.
    private static func valueStart(of name: [UInt8], _ bytes: UnsafeRawBufferPointer, headerEnd: Int) -> Int? {
        var index = 0
        while index + name.count < headerEnd {
            if bytes[index] == 10 {
                var matched = true
                for offset in 0..<name.count where bytes[index + 1 + offset] | 0x20 != name[offset] | 0x20 {
                    matched = false
                    break
                }
                if matched {
                    var cursor = index + 1 + name.count
                    while bytes[cursor] == 0x20 { cursor += 1 }
                    return cursor
                }
            }
            index += 1
        }
        return nil
    }

    /// Whether a body reports a per-item failure (`serverErrorCode` inside a 200 answer).
    static func hasItemError(_ body: UnsafeRawBufferPointer) -> Bool {
        let marker = Array("serverErrorCode".utf8)
        guard body.count >= marker.count else { return false }
        var index = 0
        let last = body.count - marker.count
        while index <= last {
            if body[index] == marker[0] {
                var offset = 1
                while offset < marker.count && body[index + offset] == marker[offset] { offset += 1 }
                if offset == marker.count { return true }
            }
            index += 1
        }
        return false
    }
}
