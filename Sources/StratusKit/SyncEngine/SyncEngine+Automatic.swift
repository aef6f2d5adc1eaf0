import Foundation

extension SyncEngine {
    /// The longest wait between retries when the server names none.
    static let longestBackoff: TimeInterval = 60

    /// Syncs by itself until the calling task is cancelled or ``stop()`` is called: saves the database
    /// subscription, follows the server's event stream, and runs the loop that fetches and sends when asked to,
    /// retrying with growing waits. For an engine made without ``Configuration/automaticallySync``, in the task the
    /// app chooses. Returns at once when the engine is stopped or already syncing (automatically, say).
    public func run() async {
        guard !stopped, stopRunning == nil else { return }
        let (stops, stopper) = AsyncStream<Void>.makeStream()
        stopRunning = stopper
        defer { stopRunning = nil }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.followNotifications() }
            group.addTask { await self.runLoop() }
            group.addTask {
                for await _ in stops {}
            }
            // Whichever ends first (stop(), or the loop after its wake-ups ended) ends the others.
            await group.next()
            group.cancelAll()
        }
    }

    /// Asks for a fetch when the database's subscription fires, and when the stream connects (what happened while
    /// it was not connected is fetched then).
    private func followNotifications() async {
        let scope = database.databaseScope
        var subscribed = false
        var wait: TimeInterval = 1
        while !Task.isCancelled {
            do {
                if !subscribed {
                    _ = try await database.save(Subscription(
                        id: configuration.subscriptionID, kind: .database, notificationInfo: .init(shouldSendContentAvailable: true)
                    ))
                    subscribed = true
                }
                for try await event in database.container.notificationEvents() {
                    switch event {
                    case .connected:
                        wait = 1
                        requestFetch()
                    case .notification(let notification) where notification.databaseScope == scope:
                        requestFetch()
                    default:
                        break
                    }
                }
            } catch {
                if Task.isCancelled { return }
            }
            try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            wait = min(wait * 2, Self.longestBackoff)
        }
    }

    private func requestFetch() {
        fetchWanted = true
        wake.yield()
    }

    /// Fetches and sends while there is something to do; on a failure worth retrying waits (the server's
    /// `retryAfter`, or a doubling backoff) and tries again; otherwise waits to be asked again.
    private func runLoop() async {
        var backoff: TimeInterval = 1
        var wakeUps = wakeUps.makeAsyncIterator()
        while !Task.isCancelled {
            if !fetchWanted && !(sendWanted && hasPendingChanges) {
                guard await wakeUps.next() != nil else { return }
                continue
            }
            do {
                let operation = Task { try await self.automaticPass() }
                automaticOperation = operation
                defer { automaticOperation = nil }
                try await operation.value
                backoff = 1
            } catch {
                let error = Self.stratusError(error)
                // What failed is asked for again, after a wait.
                fetchWanted = true
                sendWanted = true
                guard error.isWorthRetrying || error.code == .zoneNotFound else {
                    // Not signed in, or refused: wait to be asked again (a new change, a notification).
                    fetchWanted = false
                    guard await wakeUps.next() != nil else { return }
                    continue
                }
                let wait = error.retryAfter ?? backoff
                record(TimelineEntry(kind: .retryScheduled(after: wait, error: error)))
                backoff = min(backoff * 2, Self.longestBackoff)
                try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
            }
        }
    }

    /// One round of the loop: the fetch and the send asked for.
    private func automaticPass() async throws {
        if fetchWanted {
            fetchWanted = false
            try await exclusively {
                if let options = configuration.scheduledFetchOptions {
                    let (included, prioritized) = await options()
                    try await fetchChangesInOperation(inZones: included, prioritized: prioritized)
                } else {
                    try await fetchChangesInOperation()
                }
            }
        }
        if sendWanted {
            sendWanted = false
            try await exclusively { try await send(reason: .scheduled) }
        }
    }

    private var hasPendingChanges: Bool {
        state.hasPendingRecordChanges || !state.pendingDatabaseChanges.isEmpty || (configuration.hasUntrackedChanges?() ?? false)
    }

    /// Asks the engine to send soon, when it syncs by itself (changes the app does not track as pending ones).
    package func requestSend() {
        sendWanted = true
        wake.yield()
    }
}
