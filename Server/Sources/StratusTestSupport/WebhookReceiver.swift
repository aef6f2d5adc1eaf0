import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import StratusStoreTesting
import Synchronization

/// A webhook receiver on loopback for tests: keeps every request it gets (headers and body), answers `500` to the
/// first ``failFirst`` of them (as a receiver that is down), and checks Standard Webhooks signatures. With another
/// answer, it stands for other receivers of posts (an OpenTelemetry collector).
public final class WebhookReceiver: Sendable {
    /// One request as it arrived.
    public struct Received: Sendable {
        public var id: String
        public var timestamp: String
        public var signature: String
        public var body: String
        /// Whether it was answered with a failure on purpose.
        public var refused: Bool

        /// The body's JSON.
        public var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]) ?? [:] }
    }

    final class State: Sendable {
        let received = Mutex<[Received]>([])
        let failuresLeft = Mutex(0)
        let answer: (contentType: String, body: String)

        init(answer: (contentType: String, body: String)) {
            self.answer = answer
        }
    }

    private let state: State
    public let port: Int
    private let channel: any Channel

    /// The URL to register.
    public var url: String { "http://127.0.0.1:\(port)/hooks" }
    /// Every request so far, in arrival order.
    public var received: [Received] { state.received.withLock { $0 } }

    /// - Parameter answer: what a request that is not failed on purpose gets.
    public init(failFirst: Int = 0, answer: (contentType: String, body: String) = ("text/plain", "ok")) throws {
        let state = State(answer: answer)
        self.state = state
        state.failuresLeft.withLock { $0 = failFirst }
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(Responder(state)) }
            }
        channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
    }

    deinit {
        channel.close(promise: nil)
    }

    /// Answers the next `count` requests `500`.
    public func failNext(_ count: Int) {
        state.failuresLeft.withLock { $0 = count }
    }

    /// Whether `received` carries a valid signature by one of `secrets` (`whsec_…`) over its id, timestamp and body.
    public static func verify(_ received: Received, secrets: [String]) -> Bool {
        let signed = Data("\(received.id).\(received.timestamp).\(received.body)".utf8)
        let expected = secrets.compactMap { secret -> String? in
            guard let key = Data(base64Encoded: String(secret.dropFirst("whsec_".count))) else { return nil }
            return "v1," + Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: key))).base64EncodedString()
        }
        return received.signature.split(separator: " ").contains { expected.contains(String($0)) }
    }

    /// Waits until `condition` holds for what arrived, failing with what did after `seconds`.
    public func waitUntil(_ what: String, within seconds: Double = 60, _ condition: ([Received]) -> Bool) async throws {
        try await Polling.until(what, within: seconds, every: .milliseconds(50), { condition(received) }) {
            "received \(received.count): \(received.map { $0.body.prefix(120) })"
        }
    }

    private final class Responder: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let state: State
        private var head: HTTPRequestHead?
        private var body = ByteBuffer()

        init(_ state: State) {
            self.state = state
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                self.head = head
                body.clear()
            case .body(var part): body.writeBuffer(&part)
            case .end:
                let refuse = state.failuresLeft.withLock { left -> Bool in
                    guard left > 0 else { return false }
                    left -= 1
                    return true
                }
                let headers = head?.headers
                state.received.withLock {
                    $0.append(Received(
                        id: headers?.first(name: "webhook-id") ?? "", timestamp: headers?.first(name: "webhook-timestamp") ?? "",
                        signature: headers?.first(name: "webhook-signature") ?? "", body: String(buffer: body), refused: refuse
                    ))
                }
                let reply = ByteBuffer(string: refuse ? "down for maintenance" : state.answer.body)
                var response = HTTPResponseHead(version: .http1_1, status: refuse ? .internalServerError : .ok)
                response.headers.add(name: "content-type", value: refuse ? "text/plain" : state.answer.contentType)
                response.headers.add(name: "content-length", value: String(reply.readableBytes))
                context.write(wrapOutboundOut(.head(response)), promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(reply))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
