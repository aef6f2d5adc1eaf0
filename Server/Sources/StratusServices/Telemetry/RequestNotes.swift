import StratusModel
import Synchronization

/// What a route learned about its request that telemetry and the request log keep: the container and environment
/// it reached, the caller, the record types it touched and the record operations refused inside an answer.
///
/// Handlers get the request context by value, so they note these on this shared object, which the activity
/// middleware reads once the request is answered.
package final class RequestNotes: Sendable {
    package struct Notes: Sendable {
        package var containerID: String?
        package var environment: Environment?
        package var userRecordName: String?
        package var recordTypes: [String] = []
        /// Codes of record operations refused inside a `200` answer, with how many of each.
        package var refusals: [String: Int] = [:]
        /// The code the request was answered with, when it failed.
        package var errorCode: String?
    }

    private let state = Mutex(Notes())

    package init() {}

    package var current: Notes { state.withLock { $0 } }

    package func noteCaller(containerID: String, environment: Environment, userRecordName: String?) {
        state.withLock { notes in
            notes.containerID = containerID
            notes.environment = environment
            notes.userRecordName = userRecordName
        }
    }

    package func noteRecordTypes(_ types: some Sequence<String>) {
        state.withLock { notes in
            for type in types where !notes.recordTypes.contains(type) { notes.recordTypes.append(type) }
        }
    }

    package func noteFailure(_ code: String) {
        state.withLock { $0.errorCode = code }
    }

    package func noteRefusal(_ code: String) {
        state.withLock { $0.refusals[code, default: 0] += 1 }
    }
}

/// The container and environment a path names: `/{api}/1/{container}/{environment}/...` for the container APIs
/// (database, auth, account, device, functions), with what follows the environment.
package struct ContainerPath: Sendable {
    package var containerID: String
    /// The environment segment, as sent (not checked).
    package var environment: Substring?
    /// What follows the environment: `public/records/modify`, `signin`...
    package var operation: Substring

    private static let containerAPIs: Set<Substring> = ["database", "auth", "account", "device", "functions"]

    package init?(_ path: String) {
        let segments = path.split(separator: "/", maxSplits: 4, omittingEmptySubsequences: true)
        guard segments.count >= 3, Self.containerAPIs.contains(segments[0]), segments[1] == "1" else { return nil }
        containerID = String(segments[2])
        environment = segments.count > 3 ? segments[3] : nil
        operation = segments.count > 4 ? segments[4] : ""
    }
}
