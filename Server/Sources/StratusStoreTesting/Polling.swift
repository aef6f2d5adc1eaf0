/// The tests' one way to wait for something: check a condition until it holds, failing with what was seen when it
/// does not within the deadline. A loaded machine makes fixed waits wrong both ways; this waits as long as needed and
/// no longer.
public enum Polling {
    /// Waits until `condition` holds.
    /// - Throws: ``PollingTimeout`` naming `what` and what `describe` says, after `seconds`.
    public static func until(
        _ what: String, within seconds: Double = 60, every interval: Duration = .milliseconds(20),
        _ condition: () async throws -> Bool, describe: () async -> String = { "" }
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try await !condition() {
            guard ContinuousClock.now < deadline else {
                let seen = await describe()
                throw PollingTimeout(description: "\(what) did not happen within \(seconds) s" + (seen.isEmpty ? "" : ": \(seen)"))
            }
            try await Task.sleep(for: interval)
        }
    }
}

/// A condition that did not come to hold in time, with what was seen meanwhile.
public struct PollingTimeout: Error, CustomStringConvertible {
    public let description: String
}
