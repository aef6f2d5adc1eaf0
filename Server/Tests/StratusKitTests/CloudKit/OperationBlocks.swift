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
        let pending = LockedBox<CheckedContinuation<T, any Error>?>(nil)
        let finish: @Sendable (Result<T, any Error>) -> Void = { result in
            var taken: CheckedContinuation<T, any Error>?
            pending.update { continuation in
                taken = continuation
                continuation = nil
            }
            taken?.resume(with: result)
        }
        let deadline = Task {
            try await Task.sleep(for: .seconds(seconds))
            finish(.failure(NoAnswer(description: "\(what) did not answer within \(seconds) s")))
        }
        defer { deadline.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            pending.value = continuation
            start { finish(.success($0)) }
        }
    }
}
