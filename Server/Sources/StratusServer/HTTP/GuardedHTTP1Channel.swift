import StratusServices
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// HTTP/1.1 as Hummingbird serves it, with ``DeclaredBodyGuard`` in front of the parser, so that a chunk declared
/// larger than any request may be is refused at once.
struct GuardedHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let inner: HTTP1Channel
    /// The largest body any route takes.
    let maximumBodyBytes: Int64

    var responder: HTTPChannelHandler.Responder { inner.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(DeclaredBodyGuard(maximumBodyBytes: maximumBodyBytes))
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with ``DeclaredBodyGuard`` in front of the parser.
    static func guardedHTTP1(configuration: HTTP1Channel.Configuration, maximumBodyBytes: Int64) -> HTTPServerBuilder {
        .init { responder in
            GuardedHTTP1Channel(inner: HTTP1Channel(responder: responder, configuration: configuration), maximumBodyBytes: maximumBodyBytes)
        }
    }
}
