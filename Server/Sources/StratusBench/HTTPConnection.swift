#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One keep-alive HTTP/1.1 connection on a blocking socket, sending one request at a time: for setup
/// and for sequential scenarios such as a full sync.
final class HTTPConnection {
    /// A response's status and body.
    struct Response {
        var status: Int
        var body: [UInt8]
    }

    private var socket: Int32
    private let host: String
    private let port: Int
    /// Bytes read but not yet consumed.
    private var inbound: [UInt8] = []
    /// Whether the server said it closes the connection after the last response (a proxy's keep-alive limit).
    private var closing = false

    init(host: String, port: Int) throws {
        socket = try Self.openSocket(host: host, port: port)
        self.host = host
        self.port = port
    }

    /// A connected, blocking TCP socket with Nagle's algorithm off.
    static func openSocket(host: String, port: Int) throws -> Int32 {
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
        let socket = openSystemSocket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard socket >= 0 else { throw BenchError("cannot open a socket") }
        guard connect(socket, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 else {
            close(socket)
            throw BenchError("cannot connect to \(host):\(port)")
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return socket
    }

    deinit {
        close(socket)
    }

    /// Reads whatever arrives next, for a response that never ends (server-sent events); `[]` when closed.
    func readAvailable() -> [UInt8] {
        if !inbound.isEmpty {
            defer { inbound = [] }
            return inbound
        }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
        return count > 0 ? Array(chunk[0..<count]) : []
    }

    /// Sends a request and reads its whole response.
    func send(_ method: String, _ path: String, body: String = "", headers: [(String, String)] = []) throws -> Response {
        try begin(method, path, body: body, headers: headers)
        return try readResponse()
    }

    /// Sends a request without waiting for its response (a long poll), to read it later with ``readResponse()``.
    func begin(_ method: String, _ path: String, body: String = "", headers: [(String, String)] = []) throws {
        if closing {
            close(socket)
            socket = try Self.openSocket(host: host, port: port)
            inbound = []
            closing = false
        }
        let request = RequestBytes.make(method, path, host: host, body: body, headers: headers)
        var offset = 0
        while offset < request.count {
            let written = request[offset...].withUnsafeBytes { write(socket, $0.baseAddress, $0.count) }
            guard written > 0 else { throw BenchError("the server closed the connection") }
            offset += written
        }
    }

    /// Reads the next whole response.
    func readResponse() throws -> Response {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let parsed = inbound.withUnsafeBytes { ResponseParser.parse($0) }
            if let parsed {
                let response = Response(status: parsed.status, body: Array(inbound[parsed.body]))
                inbound.removeFirst(parsed.length)
                closing = parsed.closes
                return response
            }
            let count = chunk.withUnsafeMutableBytes { read(socket, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchError("the server closed the connection") }
            inbound += chunk[0..<count]
        }
    }
}

#if canImport(Glibc)
private let openSystemSocket = Glibc.socket
#else
private let openSystemSocket = Darwin.socket
#endif

/// A benchmark that could not run.
public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
