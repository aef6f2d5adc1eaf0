import Hummingbird
import StratusServices
import StratusStore

/// What an admin API operation needs of its actor, declared with its route (`group.get(path, .viewer, use:)`):
///
/// - ``anyOperator``: server-wide reads; ``administrator``: server-wide changes, people, backups and the admin key;
/// - in the route's `:container`: ``viewer`` reads; ``developer`` changes the `:environment` it names, which in
///   `production` needs the ``owner``; ``owner`` everything else (production, deploying, keys, tokens, secrets, any
///   deletion).
enum AdminAccess: Sendable, Equatable {
    case anyOperator
    case administrator
    case viewer
    case developer
    case owner

    /// Refuses an actor that may not, in the container and environment the request names.
    /// - Throws: `ACCESS_DENIED` naming what was needed.
    func check(_ actor: AdminActor, containerID: String?, environment: String?) throws {
        switch self {
        case .anyOperator:
            return
        case .administrator:
            guard actor.isAdministrator else { throw APIError(.accessDenied, "this needs an administrator of the server") }
        case .viewer, .developer, .owner:
            guard let containerID else { throw APIError.internalError(AdminRouteError(description: "\(self) declared on a route without :container")) }
            let needed: OperatorRole = switch self {
            case .viewer: .viewer
            case .developer: environment == "development" ? .developer : .owner
            default: .owner
            }
            try Self.require(needed, in: containerID, of: actor)
        }
    }

    /// Refuses an actor without `role` (or a higher one) in `containerID`.
    /// - Throws: `ACCESS_DENIED` naming the role.
    static func require(_ role: OperatorRole, in containerID: String, of actor: AdminActor) throws {
        guard let held = actor.role(in: containerID), held >= role else {
            throw APIError(.accessDenied, "this needs the \(role.rawValue) role in \(containerID)")
        }
    }
}

/// A route guarded by ``AdminController/requireAdmin(_:_:)`` that declared no ``AdminAccess``.
struct AdminRouteError: Error, CustomStringConvertible {
    var description: String
}

extension RouterGroup where Context == StratusRequestContext {
    /// Registers an admin operation with the access it needs, which `requireAdmin` checks.
    @discardableResult
    func get(_ path: RouterPath, _ access: AdminAccess, use handler: @escaping @Sendable (Request, Context) async throws -> Response) -> Self {
        on(path, method: .get, access, use: handler)
    }

    @discardableResult
    func post(_ path: RouterPath, _ access: AdminAccess, use handler: @escaping @Sendable (Request, Context) async throws -> Response) -> Self {
        on(path, method: .post, access, use: handler)
    }

    @discardableResult
    func put(_ path: RouterPath, _ access: AdminAccess, use handler: @escaping @Sendable (Request, Context) async throws -> Response) -> Self {
        on(path, method: .put, access, use: handler)
    }

    @discardableResult
    func delete(_ path: RouterPath, _ access: AdminAccess, use handler: @escaping @Sendable (Request, Context) async throws -> Response) -> Self {
        on(path, method: .delete, access, use: handler)
    }

    private func on(
        _ path: RouterPath, method: HTTPRequest.Method, _ access: AdminAccess, use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) -> Self {
        on(path, method: method) { request, context in
            var context = context
            context.adminAccess = access
            return try await handler(request, context)
        }
    }
}
