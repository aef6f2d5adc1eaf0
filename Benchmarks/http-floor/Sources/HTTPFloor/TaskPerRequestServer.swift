import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOPosix

/// NIO channel handlers that answer each request from a task of its own, as a server whose routes are `async`
/// must: either with a fixed answer (`task`: what the task alone costs) or through a Hummingbird router
/// (`router`: Hummingbird's routing, request and response types without its async connection handling).
enum TaskPerRequestServer {
    static func run(port: Int, throughRouter: Bool) async throws {
        let router = Router()
        router.get("/healthz") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: healthBody))
        }
        let responder = throughRouter ? router.buildResponder() : nil
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                    try channel.pipeline.syncOperations.addHandler(TaskDispatcher(responder: responder))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        try await channel.closeFuture.get()
    }
}

private let healthBody = ByteBuffer(string: #"{"status":"ok"}"#)
private let logger = Logger(label: "http-floor")

/// Starts a task at the end of each request; the task makes the response and writes it to the channel.
final class TaskDispatcher<Responder: HTTPResponder>: ChannelInboundHandler where Responder.Context == BasicRequestContext {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let responder: Responder?
    private var head: HTTPRequest?

    init(responder: Responder?) {
        self.responder = responder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head else { return }
            self.head = nil
            let channel = context.channel
            let responder = self.responder
            Task {
                var status = HTTPResponse.Status.ok
                var fields: HTTPFields = [.contentType: "application/json"]
                var body = healthBody
                if let responder {
                    let request = Request(head: head, body: .init(buffer: ByteBuffer()))
                    let requestContext = BasicRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
                    let response = (try? await responder.respond(to: request, context: requestContext)) ?? Response(status: .internalServerError)
                    let collector = BodyCollector()
                    try? await response.body.write(collector)
                    (status, fields, body) = (response.status, response.headers, collector.buffer)
                }
                fields[.contentLength] = String(body.readableBytes)
                channel.write(HTTPResponsePart.head(HTTPResponse(status: status, headerFields: fields)), promise: nil)
                channel.write(HTTPResponsePart.body(body), promise: nil)
                channel.writeAndFlush(HTTPResponsePart.end(nil), promise: nil)
            }
        }
    }
}

/// Collects a Hummingbird response body into one buffer.
final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var buffer = ByteBuffer()

    func write(_ part: ByteBuffer) async throws {
        var part = part
        buffer.writeBuffer(&part)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
