import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback HTTP proxy in front of a server that behaves like a busy CloudKit: every `throttleEvery`-th
/// `records/query` is refused with `503 THROTTLED` and `retryAfter: 1`, and each request it lets through is
/// held back `delay` first. One request per connection (`Connection: close`).
final class ThrottlingProxy: Sendable {
    let port: Int
    private let listener: Int32
    private let upstream: Int
    private let throttleEvery: Int
    private let delay: Duration
    private let queries = Mutex(0)
    /// While set, the copy's later pages (queries with a continuation marker and all their fields) wait.
    private let holding = Mutex(false)
    /// How many queries it refused.
    var throttled: Int { queries.withLock { $0 / throttleEvery } }

    init(upstreamPort: Int, throttleEvery: Int, delay: Duration) throws {
        upstream = upstreamPort
        self.throttleEvery = throttleEvery
        self.delay = delay
        let listening = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listening, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listening, 64) == 0 else { throw E2EFailure("the proxy cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listening, $0, &length) } }
        listener = listening
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Holds every page of a copy after its first (counting pages, which ask for no fields, go on), until
    /// ``release()``: a client stops there, at a known point.
    func holdLaterPages() {
        holding.withLock { $0 = true }
    }

    func release() {
        holding.withLock { $0 = false }
    }

    /// Stops accepting connections.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        guard let request = Self.readRequest(client) else { return }
        let head = String(decoding: request.prefix(200), as: UTF8.self)
        if head.contains("/records/query") {
            let number = queries.withLock { count in
                count += 1
                return count
            }
            if number % throttleEvery == 0 {
                let body = #"{"serverErrorCode":"THROTTLED","reason":"too many requests; slow down","retryAfter":1}"#
                Self.write(Array("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)".utf8), to: client)
                return
            }
        }
        let text = String(decoding: request, as: UTF8.self)
        while text.contains("/records/query"), text.contains("continuationMarker"), !text.contains("desiredKeys"), holding.withLock({ $0 }) {
            Thread.sleep(forTimeInterval: 0.02)
        }
        Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server) }
        var address = Self.loopback(port: upstream)
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { return }
        Self.write(request, to: server)
        // The answer is relayed as it comes, saying the connection closes after it, and the connection is closed
        // once the answer is whole: a client never sends a second request down it, whatever the server does.
        var buffer = [UInt8](repeating: 0, count: 65536)
        var answerHead: [UInt8] = []
        var left: Int?
        while true {
            let count = read(server, &buffer, buffer.count)
            if count <= 0 { return }
            var bytes = Array(buffer[0..<count])
            if left == nil {
                answerHead += bytes
                guard let end = Self.find(Array("\r\n\r\n".utf8), in: answerHead) else { continue }
                let lines = String(decoding: answerHead[0..<end], as: UTF8.self).split(separator: "\r\n").filter { !$0.lowercased().hasPrefix("connection:") }
                let length = lines.first { $0.lowercased().hasPrefix("content-length:") }.flatMap { line in
                    Int(line.split(separator: ":")[1].trimmingCharacters(in: CharacterSet.whitespaces))
                }
                bytes = Array((lines.joined(separator: "\r\n") + "\r\nConnection: close\r\n\r\n").utf8) + answerHead[(end + 4)...]
                left = length.map { $0 - (answerHead.count - end - 4) } ?? Int.max
            } else if left != Int.max {
                left! -= bytes.count
            }
            Self.write(bytes, to: client)
            if let left, left <= 0 { return }
        }
    }

    /// The request's head (asking the server to close the connection after answering) and its body.
    private static func readRequest(_ socket: Int32) -> [UInt8]? {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var length = 0
        while headEnd == nil || data.count < headEnd! + length {
            let count = read(socket, &buffer, buffer.count)
            if count <= 0 { return nil }
            data += buffer[0..<count]
            if headEnd == nil, let end = find(Array("\r\n\r\n".utf8), in: data) {
                headEnd = end + 4
                let head = String(decoding: data[0..<end], as: UTF8.self)
                for line in head.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
        }
        var head = String(decoding: data[0..<(headEnd! - 4)], as: UTF8.self)
            .split(separator: "\r\n").filter { !$0.lowercased().hasPrefix("connection:") }.joined(separator: "\r\n")
        head += "\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + data[headEnd!...]
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<(index + needle.count)]) == needle { return index }
        return nil
    }

    private static func write(_ bytes: [UInt8], to socket: Int32) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
