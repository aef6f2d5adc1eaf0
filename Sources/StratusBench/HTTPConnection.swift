#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One keep-alive HTTP/1.1 connection on a blocking socket, sending one request at a time.
///
/// Deliberately minimal, so that the load generator spends as little of the machine as possible:
/// each benchmark client is one OS thread with one of these.
final class HTTPConnection {
    /// A response's status and body.
    struct Response {
        var status: Int
        var body: [UInt8]

        /// Whether the body reports a per-item failure (`serverErrorCode` inside a 200 answer).
        var hasItemError: Bool {
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

    private let socket: Int32
    private let host: String
    /// Bytes read but not yet consumed, in `storage[start..<end]`.
    private var storage = [UInt8](repeating: 0, count: 1 << 20)
    private var start = 0
    private var end = 0

    init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let address = result else {
            throw BenchError("cannot resolve \(host)")
        }
        defer { freeaddrinfo(result) }
        let socket = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard socket >= 0 else { throw BenchError("cannot open a socket") }
        guard connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            close(socket)
            throw BenchError("cannot connect to \(host):\(port)")
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.socket = socket
        self.host = host
    }

    deinit {
        close(socket)
    }

    /// Sends a request and reads its whole response.
    func send(_ method: String, _ path: String, body: String = "", headers: [(String, String)] = []) throws -> Response {
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
        try writeAll(request)
        return try readResponse()
    }

    private func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            guard written > 0 else { throw BenchError("the server closed the connection") }
            offset += written
        }
    }

    /// Reads more bytes after `end`, moving unread bytes to the front or growing the buffer as needed.
    private func fill() throws {
        if start > 0 {
            storage.withUnsafeMutableBytes { raw in
                _ = memmove(raw.baseAddress!, raw.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        if end == storage.count { storage += [UInt8](repeating: 0, count: storage.count) }
        let count = storage.withUnsafeMutableBytes { raw in read(socket, raw.baseAddress! + end, raw.count - end) }
        guard count > 0 else { throw BenchError("the server closed the connection") }
        end += count
    }

    private func readResponse() throws -> Response {
        // Status line and headers, up to the blank line.
        var headerEnd = -1
        var scanned = start
        while headerEnd < 0 {
            while scanned + 3 < end {
                if storage[scanned] == 13 && storage[scanned + 1] == 10 && storage[scanned + 2] == 13 && storage[scanned + 3] == 10 {
                    headerEnd = scanned
                    break
                }
                scanned += 1
            }
            if headerEnd < 0 {
                let offset = scanned - start
                try fill()
                scanned = start + offset
            }
        }
        // "HTTP/1.1 200 OK": the status is the three digits after the first space.
        var index = start
        while storage[index] != 0x20 { index += 1 }
        let status = Int(storage[index + 1] - 48) * 100 + Int(storage[index + 2] - 48) * 10 + Int(storage[index + 3] - 48)
        let length = contentLength(from: start, to: headerEnd)
        // Offsets are kept relative to `start`, which `fill()` may move.
        let bodyOffset = headerEnd + 4 - start
        while end - start < bodyOffset + length { try fill() }
        let bodyStart = start + bodyOffset
        let body = Array(storage[bodyStart..<(bodyStart + length)])
        start = bodyStart + length
        if start == end {
            start = 0
            end = 0
        }
        return Response(status: status, body: body)
    }

    /// The Content-Length header's value, found case-insensitively in `storage[from..<to]`.
    private func contentLength(from: Int, to: Int) -> Int {
        let name = Array("content-length:".utf8)
        var index = from
        while index + name.count < to {
            if storage[index] == 10 {
                var matched = true
                for offset in 0..<name.count where storage[index + 1 + offset] | 0x20 != name[offset] | 0x20 {
                    matched = false
                    break
                }
                if matched {
                    var cursor = index + 1 + name.count
                    while storage[cursor] == 0x20 { cursor += 1 }
                    var value = 0
                    while storage[cursor] >= 48 && storage[cursor] <= 57 {
                        value = value * 10 + Int(storage[cursor] - 48)
                        cursor += 1
                    }
                    return value
                }
            }
            index += 1
        }
        return 0
    }
}

/// A benchmark that could not run.
public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
