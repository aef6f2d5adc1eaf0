import HTTPTypes
import StratusServices
import StratusStore

/// What an admin API request needs of its actor, read from its method and path:
///
/// - server-wide reads (`containers`, `activity`, `quotas`, `audit`) need any operator; server-wide changes
///   (creating containers, quotas' defaults, measuring, resealing secrets, people) need an administrator;
/// - in a container, reads need a viewer, changes to its `development` environment a developer, and everything
///   else (production, deploying, keys, tokens, secrets, any deletion) its owner.
enum AdminAccess: Sendable, Equatable {
    case anyOperator
    case administrator
    case role(OperatorRole, containerID: String)

    /// The first path segments under `/admin/1/` that are not containers.
    static let serverWide: Set<Substring> = [
        "containers", "activity", "quotas", "usage", "secrets", "operators", "audit", "session", "backups", "admin-key", "overview",
    ]
    /// Server-wide paths that only administrators read too.
    static let administratorsOnly: Set<Substring> = ["operators", "backups", "admin-key"]

    static func needed(method: HTTPRequest.Method, path: String) -> AdminAccess {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).dropFirst(2)
        guard let first = segments.first else { return .administrator }
        let reads = method == .get || method == .head
        if serverWide.contains(first) {
            return reads && !administratorsOnly.contains(first) ? .anyOperator : .administrator
        }
        let containerID = String(first)
        if reads { return .role(.viewer, containerID: containerID) }
        if method != .delete, segments.dropFirst().first == "development" { return .role(.developer, containerID: containerID) }
        return .role(.owner, containerID: containerID)
    }

    /// Refuses an actor that may not.
    /// - Throws: `ACCESS_DENIED` naming what was needed.
    func check(_ actor: AdminActor) throws {
        switch self {
        case .anyOperator:
            return
        case .administrator:
            guard actor.isAdministrator else { throw APIError(.accessDenied, "this needs an administrator of the server") }
        case .role(let needed, let containerID):
            guard let role = actor.role(in: containerID), role >= needed else {
                throw APIError(.accessDenied, "this needs the \(needed.rawValue) role in \(containerID)")
            }
        }
    }
}
