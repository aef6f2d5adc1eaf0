import Foundation
import StratusStoreTesting
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A local HTTP/2 server over TLS that answers like Apple's push service and keeps what it receives.
/// Devices in `gone` are answered `410 Unregistered`.
final class FakeAPNs: Sendable {
    struct Received: Sendable {
        var path: String
        var headers: [String: String]
        var body: String
    }

    let received = Mutex<[Received]>([])
    let certificatePEM: String
    let port: Int
    private let channel: any Channel

    init(gone: Set<String>) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fake-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let openssl = try ChildProcess("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            "-keyout", folder.appendingPathComponent("key.pem").path, "-out", folder.appendingPathComponent("cert.pem").path,
        ])
        openssl.waitForExit()
        let certificatePEM = try String(contentsOf: folder.appendingPathComponent("cert.pem"), encoding: .utf8)
        let keyPEM = try String(contentsOf: folder.appendingPathComponent("key.pem"), encoding: .utf8)
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
        )
        tls.applicationProtocols = ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let box = ReceivedBox()
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    channel.configureHTTP2Pipeline(mode: .server) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandlers([
                                HTTP2FramePayloadToHTTP1ServerCodec(), Responder(gone: gone, box: box),
                            ])
                        }
                    }.map { _ in () }
                }
            }
        channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
        self.certificatePEM = certificatePEM
        box.owner = self
    }

    deinit {
        channel.close(promise: nil)
    }

    /// Waits until `count` requests arrived, up to `timeout` seconds.
    func waitForRequests(_ count: Int, timeout: Double = 5) async throws -> [Received] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let now = received.withLock { $0 }
            if now.count >= count { return now }
            try await Task.sleep(for: .milliseconds(20))
        }
        return received.withLock { $0 }
    }

    /// Lets stream handlers reach the server once it exists.
    final class ReceivedBox: @unchecked Sendable {
        weak var owner: FakeAPNs?
    }

    /// Answers one request per HTTP/2 stream.
    final class Responder: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let gone: Set<String>
        let box: ReceivedBox
        var head: HTTPRequestHead?
        var body = ""

        init(gone: Set<String>, box: ReceivedBox) {
            self.gone = gone
            self.box = box
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): self.head = head
            case .body(let buffer): body += String(buffer: buffer)
            case .end:
                guard let head else { return }
                var headers: [String: String] = [:]
                for (name, value) in head.headers { headers[name.lowercased()] = value }
                box.owner?.received.withLock { $0.append(Received(path: head.uri, headers: headers, body: body)) }
                let device = String(head.uri.split(separator: "/").last ?? "")
                let status: HTTPResponseStatus = gone.contains(device) ? .gone : .ok
                let answer = status == .ok ? "" : #"{"reason":"Unregistered"}"#
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http2, status: status, headers: ["apns-id": UUID().uuidString]))), promise: nil)
                if !answer.isEmpty { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: answer)))), promise: nil) }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
