import Foundation

/// Waits for a CloudKit call to answer through its completion block, failing the test with `what` when no answer
/// comes within the deadline instead of hanging it.
enum OperationBlocks {
    struct NoAnswer: Error, CustomStringConvertible {
        let description: String
    }

    static func answer<T: Sendable>(
        _ what: String, within seconds: Double = 60, _ start: (@escaping @Sendable (T) -> Void) -> Void
    ) async throws -> T {
        let answered = LockedBox<T?>(nil)
        start { value in answered.value = value }
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if let value = answered.value { return value }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw NoAnswer(description: "\(what) did not answer within \(seconds) s")
    }

    /// Waits until `condition` holds, failing with `what` and what `describe` says when it does not within the
    /// deadline.
    static func waitUntil(
        _ what: String, within seconds: Double = 60, _ condition: () async throws -> Bool, describe: () async -> String = { "" }
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw NoAnswer(description: "\(what) did not happen within \(seconds) s: \(await describe())")
    }
}
