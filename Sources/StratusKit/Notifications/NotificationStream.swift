import Foundation
internal import StratusModel

/// What a notification stream reports: its connection coming and going, and the notifications.
public enum NotificationStreamEvent: Sendable {
    /// The stream is connected: what was missed has been asked for, and notifications arrive as they are stored.
    case connected
    /// The connection ended; the stream connects again after `retryAfter` seconds, resuming where it stopped.
    case disconnected(retryAfter: TimeInterval)
    case notification(SubscriptionNotification)
}

/// Where a notification stream resumes: the ``SubscriptionNotification/sequenceNumber`` of the last notification
/// it handed to the app. The stream moves it on by itself; with a file, it is kept there and survives a restart.
///
/// ```swift
/// let position = NotificationPosition(file: appSupport.appendingPathComponent("notifications.position"))
/// for try await event in container.notificationEvents(resumingAt: position) { … }
/// ```
public final class NotificationPosition: Sendable {
    private let file: URL?
    private let stored: Locked<Int64?>

    /// A position kept in memory, starting after `sequenceNumber` (`0`: every notification the server still keeps;
    /// `nil`: those stored from the first connection on).
    public init(after sequenceNumber: Int64? = nil) {
        file = nil
        stored = Locked(sequenceNumber)
    }

    /// A position kept in `file`, read from it when it exists, otherwise starting after `sequenceNumber`.
    public init(file: URL, startingAfter sequenceNumber: Int64? = nil) {
        self.file = file
        let saved = (try? String(contentsOf: file, encoding: .utf8)).flatMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        stored = Locked(saved ?? sequenceNumber)
    }

    /// The last notification handed to the app; `nil` before the first.
    public var sequenceNumber: Int64? { stored.withLock { $0 } }

    /// Moves the position on (never back), and writes it to the file, if any.
    func advance(to sequenceNumber: Int64) {
        let moved = stored.withLock { current -> Bool in
            guard current.map({ sequenceNumber > $0 }) ?? true else { return false }
            current = sequenceNumber
            return true
        }
        guard moved, let file else { return }
        try? Data(String(sequenceNumber).utf8).write(to: file, options: .atomic)
    }
}

extension Container {
    /// The signed-in user's notifications as the server stores them, from the server's event stream, with the
    /// connection's state: ``NotificationStreamEvent/connected`` each time the stream (re)connects, and
    /// ``NotificationStreamEvent/disconnected(retryAfter:)`` when it drops and will connect again, waiting longer
    /// each time up to 10 seconds. Each connection resumes after `position`, which moves on with every
    /// notification handed over, so none is lost or repeated across reconnects, and, with a file, restarts.
    ///
    /// The sequence ends when iteration stops, and throws `notAuthenticated` when nobody is signed in.
    public func notificationEvents(resumingAt position: NotificationPosition = NotificationPosition()) -> AsyncThrowingStream<NotificationStreamEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<NotificationStreamEvent, any Error>.makeStream()
        let task = Task { [self] in
            var delay: TimeInterval = 0.25
            while !Task.isCancelled {
                do {
                    try await streamOnce(position: position) { event in
                        if case .connected = event { delay = 0.25 }
                        continuation.yield(event)
                    }
                } catch let error as StratusError where error.code == .notAuthenticated {
                    continuation.finish(throwing: error)
                    return
                } catch {
                    if Task.isCancelled { break }
                }
                if Task.isCancelled { break }
                continuation.yield(.disconnected(retryAfter: delay))
                try? await Task.sleep(nanoseconds: UInt64(delay * 1_000_000_000))
                delay = min(delay * 2, 10)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The notifications alone (see ``notificationEvents(resumingAt:)``).
    ///
    /// ```swift
    /// for try await notification in container.notifications() {
    ///     if case .query(let recordID, .recordCreated, let fields) = notification.kind { … }
    /// }
    /// ```
    /// - Parameter after: resume after this ``SubscriptionNotification/sequenceNumber`` (one the app stored); `0`
    ///   starts with every notification the server still keeps for the user; `nil` with those committed from now on.
    public func notifications(after sequenceNumber: Int64? = nil) -> AsyncThrowingStream<SubscriptionNotification, any Error> {
        notifications(resumingAt: NotificationPosition(after: sequenceNumber))
    }

    /// The notifications alone, resuming at `position` (see ``notificationEvents(resumingAt:)``).
    public func notifications(resumingAt position: NotificationPosition) -> AsyncThrowingStream<SubscriptionNotification, any Error> {
        let events = notificationEvents(resumingAt: position)
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    for try await event in events {
                        if case .notification(let notification) = event { continuation.yield(notification) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// One connection of the event stream: `.connected` when the server first answers, then each notification,
    /// until the connection ends.
    private func streamOnce(position: NotificationPosition, _ emit: (NotificationStreamEvent) -> Void) async throws {
        var parser = EventStreamParser()
        let query = position.sequenceNumber.map { [URLQueryItem(name: "after", value: String($0))] } ?? []
        let request = TransportRequest(
            method: "GET", url: url("/notifications/1/\(identifier)/\(environment.rawValue)/stream", query: query),
            headers: ["Accept": "text/event-stream"]
        )
        var connected = false
        for try await chunk in transport.stream(request) {
            if !connected {
                connected = true
                emit(.connected)
            }
            for event in parser.feed(chunk) {
                guard let id = event.id.flatMap(Int64.init) else { continue }
                // Moved on as the notification is handed over, so the app reading the position then finds it there.
                position.advance(to: id)
                if let payload = try? JSONValueDecoder().decode(NotificationPayload.self, from: Data(event.data.utf8)) {
                    emit(.notification(SubscriptionNotification(sequenceNumber: id, payload: payload, currentUser: currentUserRecordName)))
                }
            }
        }
    }
}
