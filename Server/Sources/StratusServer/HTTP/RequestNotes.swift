import StratusModel
import Synchronization

/// What a route learned about its request that telemetry and the request log keep: the container and environment
/// it reached, the caller, the record types it touched and the record operations refused inside an answer.
///
/// Handlers get the request context by value, so they note these on this shared object, which the activity
/// middleware reads once the request is answered.
final class RequestNotes: Sendable {
    struct Notes: Sendable {
        var containerID: String?
        var environment: Environment?
        var userRecordName: String?
        var recordTypes: [String] = []
        /// Codes of record operations refused inside a `200` answer, with how many of each.
        var refusals: [String: Int] = [:]
        /// The code the request was answered with, when it failed.
        var errorCode: String?
    }

    private let state = Mutex(Notes())

    var current: Notes { state.withLock { $0 } }

    func noteCaller(containerID: String, environment: Environment, userRecordName: String?) {
        state.withLock { notes in
            notes.containerID = containerID
            notes.environment = environment
            notes.userRecordName = userRecordName
        }
    }

    func noteRecordTypes(_ types: some Sequence<String>) {
        state.withLock { notes in
            for type in types where !notes.recordTypes.contains(type) { notes.recordTypes.append(type) }
        }
    }

    func noteFailure(_ code: String) {
        state.withLock { $0.errorCode = code }
    }

    func noteRefusal(_ code: String) {
        state.withLock { $0.refusals[code, default: 0] += 1 }
    }
}

/// The container and environment a path names: `/{api}/1/{container}/{environment}/...` for the container APIs
/// (database, auth, account, device, functions), with what follows the environment.
struct ContainerPath: Sendable {
    var containerID: String
    /// The environment segment, as sent (not checked).
    var environment: Substring?
    /// What follows the environment: `public/records/modify`, `signin`...
    var operation: Substring

    private static let containerAPIs: Set<Substring> = ["database", "auth", "account", "device", "functions"]

    init?(_ path: String) {
        let segments = path.split(separator: "/", maxSplits: 4, omittingEmptySubsequences: true)
        guard segments.count >= 3, Self.containerAPIs.contains(segments[0]), segments[1] == "1" else { return nil }
        containerID = String(segments[2])
        environment = segments.count > 3 ? segments[3] : nil
        operation = segments.count > 4 ? segments[4] : ""
    }
}
