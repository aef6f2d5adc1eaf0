import Foundation
import HTTPTypes
import Hummingbird
import StratusModel
import ServiceLifecycle
import StratusServices
import StratusStore

/// Delivers notifications to clients without Apple's push service:
/// - `GET /courier/1/<token>`: the web courier long poll. Each answer is one notification, in order,
///   taken off the token's queue; an empty `200` after the configured wait means "poll again".
/// - `GET /notifications/1/{container}/{environment}/stream`: a signed-in user's notifications as
///   server-sent events, `id` being the notification id; `Last-Event-ID` (or `?after=`) resumes after one.
/// - `GET /notifications/1/{container}/{environment}/changes?after=N`: the notifications after `N`, for a
///   client that missed some.
struct CourierController {
    let server: ServerState

    func register(on router: Router<StratusRequestContext>) {
        router.get("courier/1/:token", use: poll)
        router.get("notifications/1/:container/:environment/stream", use: stream)
        router.get("notifications/1/:container/:environment/changes", use: changes)
    }

    @Sendable func poll(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let token = try context.parameters.require("token")
        guard let queue = try await server.store.pushToken(token, now: ServerClock.now()) else {
            throw APIError(.notFound, "the courier token does not exist or expired; call tokens/create again")
        }
        let key = NotificationWaiters.Key(containerID: queue.containerID, environment: queue.environment, user: queue.user)
        // Listen first, so that a notification committed between the check and the wait still wakes it.
        let arrivals = server.notifier.waiters.listen(key)
        let deadline = ContinuousClock.now + .milliseconds(Int(server.configuration.courierWait * 1000))
        while true {
            if let next = try await server.store.takeNotification(forToken: token, now: ServerClock.now()) {
                server.metrics.notificationsDelivered(1, via: "courier")
                return Self.json(next.notification.payload)
            }
            guard try await Self.wait(for: arrivals, until: deadline) else {
                return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody())
            }
        }
    }

    /// Waits for an arrival; `false` at the deadline.
    private static func wait(for arrivals: AsyncStream<Void>, until deadline: ContinuousClock.Instant) async throws -> Bool {
        guard ContinuousClock.now < deadline else { return false }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                var iterator = arrivals.makeAsyncIterator()
                return await iterator.next() != nil
            }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    @Sendable func stream(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (authentication, user) = try await TokensController.signedIn(request, context, server)
        let key = NotificationWaiters.Key(containerID: authentication.container.id, environment: authentication.environment, user: user)
        let header: Int64? = request.headers[.lastEventID].flatMap { Int64($0) }
        let query: Int64? = request.uri.queryParameters["after"].flatMap { Int64(String($0)) }
        let resume = header ?? query
        let arrivals = server.notifier.waiters.listen(key)
        let latest = try await server.store.latestNotificationID()
        let start = resume ?? latest
        let store = server.store
        let metrics = server.metrics
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            var last = start
            try await writer.write(ByteBuffer(string: ": stream of notifications for \(user)\n\n"))
            /// Sends what is stored after `last`; ids never go backwards, so nothing is sent twice.
            func sendNew() async throws {
                while true {
                    let backlog = try await store.notifications(for: user, containerID: key.containerID, environment: key.environment, after: last, limit: 200)
                    for notification in backlog {
                        try await writer.write(ByteBuffer(string: Self.event(notification)))
                        last = notification.id
                    }
                    metrics.notificationsDelivered(backlog.count, via: "stream")
                    if backlog.count < 200 { break }
                }
            }
            // What was missed first, then what arrives.
            try await sendNew()
            // Arrivals and a keep-alive comment every `heartbeat`; a write to a client that left fails and ends
            // the stream, and so does the server shutting down.
            let (items, continuation) = AsyncStream<Bool>.makeStream()
            let forward = Task {
                for await _ in arrivals { continuation.yield(true) }
                continuation.finish()
            }
            let heartbeat = Task {
                while (try? await Task.sleep(for: Self.heartbeat)) != nil { continuation.yield(false) }
            }
            defer {
                forward.cancel()
                heartbeat.cancel()
            }
            try await withGracefulShutdownHandler {
                for await arrived in items {
                    if arrived {
                        try await sendNew()
                    } else {
                        try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                    }
                }
            } onGracefulShutdown: {
                continuation.finish()
            }
            try await writer.finish(nil)
        })
    }

    /// How often an idle stream sends a comment, so that proxies keep it and dead clients are noticed.
    static let heartbeat = Duration.seconds(15)

    @Sendable func changes(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (authentication, user) = try await TokensController.signedIn(request, context, server)
        let after = request.uri.queryParameters["after"].flatMap { Int64(String($0)) } ?? 0
        let limit = 200
        let found = try await server.store.notifications(
            for: user, containerID: authentication.container.id, environment: authentication.environment, after: after, limit: limit + 1
        )
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("moreComing")
            writer.bool(found.count > limit)
            writer.array("notifications", Array(found.prefix(limit))) { writer, notification in
                writer.beginObject()
                writer.key("id")
                writer.integer(notification.id)
                writer.key("payload")
                writer.raw(notification.notification.payload)
                writer.endObject()
            }
        })
    }

    static func event(_ notification: StoredNotification) -> String {
        "id: \(notification.id)\nevent: notification\ndata: \(notification.notification.payload)\n\n"
    }

    static func json(_ payload: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(string: payload)))
    }
}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
}
