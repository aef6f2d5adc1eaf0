import StratusServices
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import Synchronization

/// Guards each connection against slow and greedy clients before a request reaches a route: a deadline
/// for every request head (the idle time between requests included) and an idle deadline while a body
/// arrives, past which the connection is closed; a cap on open connections per client address; and
/// CloudKit-style answers to requests the HTTP parser refuses (`431` for oversize heads).
///
/// It sits in each connection's pipeline after the HTTP codec, so it sees request parts and response parts.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let limits: ConnectionLimits
    private let connections: ConnectionCounter
    /// Whether the connection was seen open (and counted, or refused).
    private var seenOpen = false
    private var countedAddress: String?
    /// A request's head arrived and its end has not.
    private var readingRequest = false
    /// A request's head arrived and the end of its response has not been written.
    private var responding = false
    /// When the connection is closed unless it moves on (nil: no deadline, a response is being made).
    private var deadline: NIODeadline?
    /// The timer that checks ``deadline``, and when it fires.
    private var timer: Scheduled<Void>?
    private var timerDeadline: NIODeadline?

    init(limits: ConnectionLimits, connections: ConnectionCounter) {
        self.limits = limits
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        opened(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        if let address = countedAddress {
            connections.close(address)
            countedAddress = nil
        }
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    private func opened(_ context: ChannelHandlerContext) {
        guard !seenOpen else { return }
        seenOpen = true
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        guard connections.open(address, limit: limits.maximumConnectionsPerAddress) else {
            answer(context, APIError(
                .throttled, "this address has \(limits.maximumConnectionsPerAddress) connections open, the most allowed; reuse or close one", retryAfter: 1
            ))
            return
        }
        countedAddress = address
        schedule(context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            readingRequest = true
            responding = true
        case .body:
            break
        case .end:
            readingRequest = false
        }
        schedule(context)
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            responding = false
            schedule(context)
        }
        context.write(data, promise: promise)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !responding else {
            context.fireErrorCaught(error)
            return
        }
        if parserError == .headerOverflow {
            answer(context, APIError(.badRequest, "the request line or headers are larger than this server accepts", status: 431))
        } else {
            answer(context, APIError(.badRequest, "the request is not valid HTTP/1.1"))
        }
    }

    /// Sets the deadline that fits the connection's state: the next head, the next body bytes, or none
    /// while a response is being made (long polls and event streams wait as long as they need).
    ///
    /// Moving a deadline only stores it: one timer per connection fires at the earliest deadline set since
    /// it was armed and re-arms itself for the current one, so a request costs no timer of its own.
    private func schedule(_ context: ChannelHandlerContext) {
        let timeout: Duration
        if readingRequest {
            timeout = limits.bodyIdleTimeout
        } else if !responding {
            timeout = limits.requestHeadTimeout
        } else {
            deadline = nil
            return
        }
        let next = NIODeadline.now() + TimeAmount(timeout)
        deadline = next
        if let armedFor = timerDeadline, armedFor <= next { return }
        arm(context, at: next)
    }

    private func arm(_ context: ChannelHandlerContext, at when: NIODeadline) {
        timer?.cancel()
        timerDeadline = when
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: when) { [self] in
            timer = nil
            timerDeadline = nil
            guard let deadline else { return }
            if deadline <= .now() {
                // Closed without an answer: between requests, a `408` could cross a client's next request on
                // the wire and be taken for its answer; while a route reads a body, closing ends its read.
                context.close(promise: nil)
            } else {
                arm(context, at: deadline)
            }
        }
    }

    /// Writes a whole CloudKit error response, then closes the connection.
    private func answer(_ context: ChannelHandlerContext, _ error: APIError) {
        let body = context.channel.allocator.buffer(bytes: error.body(requestID: Tokens.randomHex(bytes: 16)).bytes)
        var headers: HTTPFields = [.contentType: "application/json; charset=UTF-8", .contentLength: String(body.readableBytes), .connection: "close"]
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        responding = true
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .init(code: error.status), headerFields: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}

/// Open connections by client address, shared by every connection of a server.
final class ConnectionCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    /// Counts a new connection from `address`, unless it holds `limit` already.
    func open(_ address: String, limit: Int) -> Bool {
        counts.withLock { counts in
            let count = counts[address, default: 0]
            guard count < limit else { return false }
            counts[address] = count + 1
            return true
        }
    }

    func close(_ address: String) {
        counts.withLock { counts in
            let count = counts[address, default: 1] - 1
            counts[address] = count > 0 ? count : nil
        }
    }
}
