import Foundation
import StratusStoreTesting
import StratusTestSupport

/// Waits for a CloudKit call to answer through its completion block, failing the test with `what` when no answer
/// comes within the deadline instead of hanging it.
enum OperationBlocks {
    static func answer<T: Sendable>(
        _ what: String, within seconds: Double = 60, _ start: (@escaping @Sendable (T) -> Void) -> Void
    ) async throws -> T {
        let answered = LockedBox<T?>(nil)
        start { value in answered.value = value }
        try await Polling.until("\(what) to answer", within: seconds) { answered.value != nil }
        return answered.value!
    }
}
