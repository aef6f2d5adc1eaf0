import ServiceLifecycle
import StratusStore

/// What wakes a queue's sender (mail, webhooks): a store event saying something was queued, on any node, and a
/// regular look besides (for retries falling due, and for another node's lease lapsing). Wake-ups that come while
/// the sender works are folded into one.
package final class StoreWakeUps: Sendable {
    private let wake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    /// Wakes on every committed batch of events holding `event` (and when events were missed).
    package convenience init(store: any Store, on event: StoreEvent) {
        self.init(store: store) { $0 == event }
    }

    /// Wakes on every committed batch of events holding one that `wakes` (and when events were missed).
    package init(store: any Store, when wakes: @escaping @Sendable (StoreEvent) -> Bool) {
        let continuation = wake.continuation
        store.observeEvents { delivery in
            if case .committed(let events) = delivery, !events.contains(where: wakes) { return }
            continuation.yield()
        }
    }

    /// Runs `work` at once, then at each wake-up and at least every `interval`, one run at a time, until graceful
    /// shutdown.
    package func run(every interval: Duration, _ work: @escaping @Sendable () async -> Void) async {
        let continuation = wake.continuation
        let stream = wake.stream
        continuation.yield()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while (try? await Task.sleep(for: interval)) != nil { continuation.yield() }
                }
                group.addTask {
                    for await _ in stream {
                        if Task.isCancelled { break }
                        await work()
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }
}
