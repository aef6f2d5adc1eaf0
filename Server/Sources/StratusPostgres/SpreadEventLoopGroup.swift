import Dispatch
import NIOCore
import NIOPosix

/// An event loop group that hands out its loops in turn, even to a caller on one of them.
///
/// postgres-nio opens each pool connection on `any()` of its group, which is the caller's own loop when it runs
/// on one. With Swift concurrency's tasks on the event loops (`stratus serve`), every connection then lands on the
/// same loop, and since a task goes on where its awaited result arrived, so does nearly all request work: one
/// core busy, the other idle. Spreading the connections spreads the work.
final class SpreadEventLoopGroup: EventLoopGroup, Sendable {
    private let base: MultiThreadedEventLoopGroup

    init(_ base: MultiThreadedEventLoopGroup = .singleton) {
        self.base = base
    }

    func next() -> any EventLoop { base.next() }

    func any() -> any EventLoop { base.next() }

    func makeIterator() -> EventLoopIterator { base.makeIterator() }

    func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        // The shared group outlives the store.
        queue.async { callback(nil) }
    }
}
