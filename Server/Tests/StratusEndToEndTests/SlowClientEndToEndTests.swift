import Foundation
import Testing

/// Slow and greedy clients against a real `stratus serve`: half request lines, half bodies, a chunk
/// announcing 2^64 bytes, too many connections from one address, and oversize heads.
@Suite(.serialized) struct SlowClientEndToEndTests {
    /// A server with short deadlines and a small cap, so that the test waits seconds, not minutes.
    static func startServer(headTimeout: Int = 1) async throws -> (ServerProcess, String) {
        let folder = EndToEndTests.temporaryFolder()
        let server = ServerProcess(dataFolder: folder, arguments: [
            "--head-timeout", String(headTimeout), "--body-timeout", "1", "--max-connections-per-address", "20", "--quiet",
        ])
        try await server.start()
        return (server, folder)
    }

    @Test("half a request line, half a body and a 2^64-byte chunk are cut off after their deadline")
    func deadlines() async throws {
        let (server, folder) = try await Self.startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
        let halfLine = try RawConnection(port: server.port)
        try halfLine.send("GET /heal")
        let answer = try halfLine.readUntilClosed(within: 10)
        #expect(answer.closed && answer.seconds < 5, "the connection was held \(answer.seconds) s")

        let halfBody = try RawConnection(port: server.port)
        try halfBody.send("POST /admin/1/containers HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"contain")
        let cut = try halfBody.readUntilClosed(within: 10)
        #expect(cut.closed && cut.seconds < 5, "the connection was held \(cut.seconds) s")

        let hugeChunk = try RawConnection(port: server.port)
        try hugeChunk.send("POST /admin/1/containers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\nabc")
        let refused = try hugeChunk.readUntilClosed(within: 10)
        #expect(refused.closed && refused.seconds < 5, "the connection was held \(refused.seconds) s")

        // An idle keep-alive connection gets the head deadline too; a prompt client is served as ever.
        let (status, _) = try await server.send("GET", "/healthz")
        #expect(status == 200)
    }

    @Test("a chunk declared larger than any request may be gets 413 at once; chunked and pipelined requests within it are served")
    func declaredChunkTooLarge() async throws {
        // The usual body deadline (30 s): an answer that comes is the refusal, not the deadline's close.
        let folder = EndToEndTests.temporaryFolder()
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
        let admin = "Authorization: Bearer \(ServerProcess.adminKey)\r\n"
        // A size past 64 bits is not HTTP at all: the parser's 400.
        for (size, status, code) in [("ffffffffffffffff", 413, "QUOTA_EXCEEDED"), ("10000000;name=value", 413, "QUOTA_EXCEEDED"), ("FFFFFFFFFFFFFFFFFFFF", 400, "BAD_REQUEST")] {
            let connection = try RawConnection(port: server.port)
            try connection.send("POST /admin/1/containers HTTP/1.1\r\nHost: x\r\n\(admin)Transfer-Encoding: chunked\r\n\r\n\(size)\r\nabc")
            let answer = try connection.readUntilClosed(within: 25)
            print("a chunk of \(size) bytes: answered in \(answer.seconds) s")
            #expect(answer.text.hasPrefix("HTTP/1.1 \(status)"), "\(size): \(answer.text.prefix(300))")
            #expect(answer.text.contains(#""serverErrorCode":"\#(code)""#), "\(answer.text)")
            #expect(answer.closed, "the connection is closed after the refusal")
        }

        // Within the limit: a chunked body in two chunks (the second's size with leading zeros) with a trailer, then, on the same connection and in the same
        // write, a request with a Content-Length body and a GET; each is answered in turn.
        let connection = try RawConnection(port: server.port)
        let first = #"{"containerID":"#
        let second = #""iCloud.com.example.Chunked"}"#
        let fixed = #"{"containerID":"iCloud.com.example.Fixed"}"#
        try connection.send(
            "POST /admin/1/containers HTTP/1.1\r\nHost: x\r\n\(admin)Transfer-Encoding: chunked\r\n\r\n"
                + String(first.utf8.count, radix: 16) + "\r\n\(first)\r\n" + String(repeating: "0", count: 18) + String(second.utf8.count, radix: 16) + ";ext=1\r\n\(second)\r\n0\r\nX-Trailer: t\r\n\r\n"
                + "POST /admin/1/containers HTTP/1.1\r\nHost: x\r\n\(admin)Content-Length: \(fixed.utf8.count)\r\n\r\n\(fixed)"
                + "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        let answers = try connection.readUntilClosed(within: 60)
        let statuses = answers.text.components(separatedBy: "HTTP/1.1 ").dropFirst().map { String($0.prefix(3)) }
        #expect(statuses == ["201", "201", "200"], "\(answers.text)")
        let listed = try await server.admin.containers().map(\.id)
        #expect(Set(listed).isSuperset(of: ["iCloud.com.example.Chunked", "iCloud.com.example.Fixed"]), "\(listed)")
    }

    @Test("one address holds at most its cap of connections; other addresses are still served")
    func connectionCap() async throws {
        // Deadlines long enough that the stalled connections are all still open when the last one comes,
        // however slow the machine.
        let (server, folder) = try await Self.startServer(headTimeout: 5)
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
        // Twenty-one stalled connections from one address, each a few bytes into its request line: the server
        // holds twenty and refuses one. Which one depends on the order its event loops take them in.
        var held = try (0..<21).map { _ in try RawConnection(port: server.port) }
        for connection in held { try? connection.send("G") }
        var texts = Array(repeating: "", count: held.count)
        var closed = Array(repeating: false, count: held.count)
        let deadline = Date().addingTimeInterval(4)
        while !closed.contains(true) && Date() < deadline {
            for (index, connection) in held.enumerated() where !closed[index] {
                let read = try connection.readUntilClosed(within: 0.01)
                texts[index] += read.text
                closed[index] = read.closed
            }
        }
        let refused = closed.indices.filter { closed[$0] }
        #expect(refused.count == 1, "\(refused.count) connections were closed")
        let refusal = refused.first.map { texts[$0] } ?? ""
        #expect(refusal.hasPrefix("HTTP/1.1 429"), "\(refusal)")
        #expect(refusal.contains(#""serverErrorCode":"THROTTLED""#))
        for index in refused.reversed() { held.remove(at: index) }

        let other = try RawConnection(port: server.port, from: "127.0.0.2")
        try other.send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let served = try other.readUntilClosed(within: 5)
        #expect(served.text.hasPrefix("HTTP/1.1 200"), "\(served.text)")

        // When the stalled ones are cut off, the address is served again.
        for connection in held { _ = try connection.readUntilClosed(within: 15) }
        held.removeAll()
        let (status, _) = try await server.send("GET", "/healthz")
        #expect(status == 200)
    }

    @Test("an oversize path answers 414 and oversize headers 431, each with a CloudKit error body")
    func oversizeHeads() async throws {
        let (server, folder) = try await Self.startServer()
        defer {
            server.stop()
            try? FileManager.default.removeItem(atPath: folder)
        }
        let longToken = String(repeating: "a", count: 10_000)
        let cases: [(String, String)] = [
            ("GET /database/1/iCloud.x/development/public/users/caller?ckAPIToken=\(longToken) HTTP/1.1\r\nHost: x\r\n\r\n", "414"),
            ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Apple-CloudKit-Request-SignatureV1: \(longToken)\r\n\r\n", "431"),
            ("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: \(String(repeating: "b", count: 100_000))\r\n\r\n", "431"),
        ]
        for (request, status) in cases {
            let connection = try RawConnection(port: server.port)
            try connection.send(request)
            let answer = try connection.readUntilClosed(within: 5)
            #expect(answer.text.hasPrefix("HTTP/1.1 \(status)"), "\(answer.text.prefix(200))")
            #expect(answer.text.contains(#""serverErrorCode":"BAD_REQUEST""#))
        }
    }
}

/// One loopback TCP connection driven byte by byte, as a slow or hostile client would.
final class RawConnection {
    private let socket: Int32

    /// Connects to `port` on 127.0.0.1, from the loopback address `from`.
    init(port: Int, from source: String = "127.0.0.1") throws {
        socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connected == 0 else {
            close(socket)
            throw E2EFailure("cannot connect to port \(port) from \(source)")
        }
    }

    deinit { close(socket) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw E2EFailure("the server closed the connection after \(offset) bytes") }
            offset += written
        }
    }

    /// Reads until the server closes the connection or `seconds` pass.
    func readUntilClosed(within seconds: Double) throws -> (text: String, closed: Bool, seconds: Double) {
        let start = Date()
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        repeat {
            var timeout = timeval(tv_sec: 0, tv_usec: Int(min(seconds, 0.2) * 1_000_000))
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let count = recv(socket, &buffer, buffer.count, 0)
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                return (String(decoding: received, as: UTF8.self), true, Date().timeIntervalSince(start))
            }
            if count > 0 { received += buffer[0..<count] }
        } while Date().timeIntervalSince(start) < seconds
        return (String(decoding: received, as: UTF8.self), false, Date().timeIntervalSince(start))
    }
}
