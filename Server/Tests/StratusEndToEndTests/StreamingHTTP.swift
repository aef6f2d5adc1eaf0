import Crypto
import Foundation

/// A minimal HTTP/1.1 client over a blocking loopback socket that streams bodies both ways, so tests can
/// send and receive hundreds of megabytes without holding them, and stop halfway as a crash would.
struct StreamingHTTP {
    let port: Int

    struct Response {
        var status: Int
        var headers: [String: String]
        /// The body, when it was kept.
        var body: [UInt8]
        var bodyLength: Int
        var bodyChecksum: String
    }

    /// Sends `chunks` as the body (with Content-Length when `length` is given, else chunked).
    /// - Parameter stopAfter: closes the connection after sending this many bytes, answering `nil`.
    func send(
        _ method: String, _ path: String, length: Int?, chunks: some Sequence<[UInt8]>, keepBody: Bool = true, stopAfter: Int? = nil,
        headers: [String: String] = [:]
    ) throws -> Response? {
        let socket = try Self.connect(port)
        defer { close(socket) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        head += length.map { "Content-Length: \($0)\r\n" } ?? "Transfer-Encoding: chunked\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        try Self.write(Array((head + "\r\n").utf8), to: socket)
        var sent = 0
        for chunk in chunks {
            if length == nil {
                try Self.write(Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10], to: socket)
            } else {
                try Self.write(chunk, to: socket)
            }
            sent += chunk.count
            if let stopAfter, sent >= stopAfter { return nil }
        }
        if length == nil { try Self.write(Array("0\r\n\r\n".utf8), to: socket) }
        return try Self.readResponse(socket, keepBody: keepBody)
    }

    /// A GET whose body is hashed as it arrives and kept only when asked.
    func get(_ path: String, headers: [String: String] = [:], keepBody: Bool = false) throws -> Response {
        try send("GET", path, length: 0, chunks: [[UInt8]](), keepBody: keepBody, headers: headers)!
    }

    private static func connect(_ port: Int) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            throw E2EFailure("cannot connect to port \(port)")
        }
        // A server that stops answering fails the test instead of hanging it.
        var timeout = timeval(tv_sec: 120, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }

    private static func write(_ bytes: [UInt8], to socket: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw E2EFailure("the server closed the connection after \(offset) bytes") }
            offset += written
        }
    }

    /// Reads the status, headers and a Content-Length or read-to-close body (a server may keep the
    /// connection open after a Content-Length body).
    private static func readResponse(_ socket: Int32, keepBody: Bool) throws -> Response {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var received: [UInt8] = []
        var headEnd: Int?
        var response = Response(status: 0, headers: [:], body: [], bodyLength: 0, bodyChecksum: "")
        var hasher = SHA256()
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            if headEnd == nil {
                received += buffer[0..<count]
                guard let end = find([13, 10, 13, 10], in: received) else { continue }
                headEnd = end
                let lines = String(decoding: received[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
                response.status = Int(lines[0].split(separator: " ")[1]) ?? 0
                for line in lines.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    response.headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                let rest = Array(received[(end + 4)...])
                hasher.update(data: rest)
                response.bodyLength += rest.count
                if keepBody { response.body += rest }
            } else {
                hasher.update(data: buffer[0..<count])
                response.bodyLength += count
                if keepBody { response.body += buffer[0..<count] }
            }
            if let length = response.headers["content-length"].flatMap({ Int($0) }), response.bodyLength >= length { break }
        }
        response.bodyChecksum = Data(hasher.finalize()).base64EncodedString()
        return response
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}

/// Deterministic bytes produced a megabyte at a time, with their checksum.
struct GeneratedFile: Sequence {
    let size: Int
    let chunkSize = 1024 * 1024
    /// The distinct full chunks, made once: chunk `i` is `patterns[i % 8]`.
    private static let patterns: [[UInt8]] = (0..<8).map { index in
        (0..<(1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ index) }
    }

    func makeIterator() -> AnyIterator<[UInt8]> {
        var index = 0
        return AnyIterator {
            guard index * chunkSize < size else { return nil }
            defer { index += 1 }
            return chunk(index)
        }
    }

    /// The bytes of the chunk at `index`.
    func chunk(_ index: Int) -> [UInt8] {
        let count = Swift.min(chunkSize, size - index * chunkSize)
        let pattern = Self.patterns[index % Self.patterns.count]
        return count == chunkSize ? pattern : Array(pattern.prefix(count))
    }

    var checksum: String {
        var hasher = SHA256()
        for chunk in self { hasher.update(data: chunk) }
        return Data(hasher.finalize()).base64EncodedString()
    }
}

/// The memory a process holds, from /proc.
enum ProcessMemory {
    /// Resident set size and its peak since the last reset, in bytes.
    static func read(_ pid: Int32) -> (resident: Int, peak: Int) {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        func value(_ key: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }) else { return 0 }
            return (Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" })[1]) ?? 0) * 1024
        }
        return (value("VmRSS"), value("VmHWM"))
    }

    /// Resets the peak to the current resident size (Linux's clear_refs "5").
    static func resetPeak(_ pid: Int32) {
        try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
    }
}

/// A server-sent event stream read over a loopback socket.
final class EventStreamClient {
    private let socket: Int32
    private var buffer: [UInt8] = []

    init(port: Int, path: String, headers: [String: String] = [:]) throws {
        socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Foundation.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw E2EFailure("cannot connect to port \(port)") }
        let extra = headers.map { "\($0.key): \($0.value)\r\n" }.joined()
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\(extra)\r\n".utf8)
        _ = request.withUnsafeBytes { Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(socket) }

    /// The `data` of the next `notification` event, or `nil` when none arrives within `timeout` seconds.
    func nextEvent(timeout: Double) -> String? {
        nextIdentifiedEvent(timeout: timeout)?.data
    }

    /// The `id` and `data` of the next `notification` event, or `nil` when none arrives within `timeout` seconds.
    func nextIdentifiedEvent(timeout: Double) -> (id: String, data: String)? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = String(decoding: buffer, as: UTF8.self)
            if let start = text.range(of: "event: notification\ndata: "), let end = text[start.upperBound...].range(of: "\n\n") {
                let data = String(text[start.upperBound..<end.lowerBound])
                let head = text[..<start.lowerBound]
                let id = head.range(of: "id: ", options: .backwards).map { String(head[$0.upperBound...].prefix { $0.isNumber }) } ?? ""
                buffer = Array(text[end.upperBound...].utf8)
                return (id, data)
            }
            var wait = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = recv(socket, &chunk, chunk.count, 0)
            if count > 0 { buffer += chunk[0..<count] } else if count == 0 { return nil }
        }
        return nil
    }
}
