import NIOCore
import NIOHTTP1
import NIOPosix

/// One keep-alive HTTP/1.1 connection that sends one request at a time.
struct HTTPConnection {
    /// A response's status and body.
    struct Response {
        var status: Int
        var body: ByteBuffer

        /// Whether the body reports a per-item failure (`serverErrorCode` inside a 200 answer).
        var hasItemError: Bool {
            let marker = Array("serverErrorCode".utf8)
            return body.withUnsafeReadableBytes { bytes in
                guard bytes.count >= marker.count else { return false }
                var index = 0
                let last = bytes.count - marker.count
                while index <= last {
                    if bytes[index] == marker[0] {
                        var offset = 1
                        while offset < marker.count && bytes[index + offset] == marker[offset] { offset += 1 }
                        if offset == marker.count { return true }
                    }
                    index += 1
                }
                return false
            }
        }
    }

    private let host: String
    private var inbound: NIOAsyncChannelInboundStream<HTTPClientResponsePart>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>

    /// Opens a connection, runs `body` with it, and closes it.
    static func with<T: Sendable>(host: String, port: Int, _ body: (inout HTTPConnection) async throws -> T) async throws -> T {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var connection = HTTPConnection(host: host, inbound: inbound.makeAsyncIterator(), outbound: outbound)
            return try await body(&connection)
        }
    }

    /// Sends a request and reads its whole response.
    mutating func send(_ method: HTTPMethod, _ path: String, body: ByteBuffer? = nil, headers extra: [(String, String)] = []) async throws -> Response {
        var headers = HTTPHeaders([("Host", host), ("Content-Type", "application/json")])
        headers.add(name: "Content-Length", value: String(body?.readableBytes ?? 0))
        for (name, value) in extra { headers.add(name: name, value: value) }
        try await outbound.write(.head(HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers)))
        if let body, body.readableBytes > 0 {
            try await outbound.write(.body(.byteBuffer(body)))
        }
        try await outbound.write(.end(nil))
        var status = 0
        var collected = ByteBuffer()
        while let part = try await inbound.next() {
            switch part {
            case .head(let head): status = Int(head.status.code)
            case .body(var chunk): collected.writeBuffer(&chunk)
            case .end: return Response(status: status, body: collected)
            }
        }
        throw BenchError("the server closed the connection")
    }
}

/// A benchmark that could not run.
public struct BenchError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
