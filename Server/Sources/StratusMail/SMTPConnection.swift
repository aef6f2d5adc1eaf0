import NIOCore
import NIOPosix
import NIOSSL

/// One connection to an SMTP server: replies read line by line, commands written, and TLS started on it
/// (STARTTLS) or from its first byte.
struct SMTPConnection {
    /// A reply: its three-digit code and its lines' texts.
    struct Reply: Sendable {
        var code: Int
        var lines: [String]

        var text: String { "\(code) " + lines.joined(separator: " / ") }
    }

    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    /// Bytes received and not yet read as lines.
    private var pending: [UInt8] = []

    private init(channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, inbound: NIOAsyncChannelInboundStream<ByteBuffer>, outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) {
        self.channel = channel
        self.inbound = inbound.makeAsyncIterator()
        self.outbound = outbound
    }

    /// Connects, with TLS from the start when `tls` is given, and runs `body` on the connection; closes it after.
    static func withConnection<T: Sendable>(
        host: String, port: Int, tls: NIOSSLContext?, connectTimeout: TimeAmount, _ body: (inout SMTPConnection) async throws -> T
    ) async throws -> T {
        let hostname = serverHostname(host)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(connectTimeout)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: hostname))
                    }
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            var connection = SMTPConnection(channel: channel, inbound: inbound, outbound: outbound)
            return try await body(&connection)
        }
    }

    /// The name TLS checks the certificate against; `nil` for an address (SNI carries names only).
    static func serverHostname(_ host: String) -> String? {
        let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
        return isAddress ? nil : host
    }

    /// Starts TLS on the connection (after the server's `220` to STARTTLS).
    func startTLS(_ context: NIOSSLContext, host: String) async throws {
        let hostname = Self.serverHostname(host)
        let pipeline = channel.channel.pipeline
        try await channel.channel.eventLoop.submit {
            try pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: hostname), position: .first)
        }.get()
    }

    /// Sends one command line (CRLF added).
    func send(_ line: String) async throws {
        try await outbound.write(ByteBuffer(string: line + "\r\n"))
    }

    /// Sends text as it is.
    func sendRaw(_ text: String) async throws {
        try await outbound.write(ByteBuffer(string: text))
    }

    /// Reads one reply, of one line or several (`250-...` continued, `250 ...` last).
    mutating func reply() async throws -> Reply {
        var lines: [String] = []
        while true {
            let line = try await readLine()
            let bytes = Array(line.utf8)
            guard bytes.count >= 3, let code = Int(String(decoding: bytes[0..<3], as: UTF8.self)) else {
                throw MailError("the SMTP server answered something that is not SMTP: \(line.prefix(80))", permanent: false)
            }
            lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
            if bytes.count == 3 || bytes[3] != UInt8(ascii: "-") { return Reply(code: code, lines: lines) }
        }
    }

    private mutating func readLine() async throws -> String {
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var line = Array(pending[..<end])
                pending.removeSubrange(...end)
                if line.last == UInt8(ascii: "\r") { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            guard pending.count < 64 * 1024 else { throw MailError("the SMTP server sent a line longer than 64 KB", permanent: false) }
            guard let buffer = try await inbound.next() else {
                throw MailError("the SMTP server closed the connection", permanent: false)
            }
            pending.append(contentsOf: buffer.readableBytesView)
        }
    }
}
