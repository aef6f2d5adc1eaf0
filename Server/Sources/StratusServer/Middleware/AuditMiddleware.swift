import Hummingbird
import Logging
import StratusServices
import StratusStore

/// Writes every admin action to the audit log once it is answered: who (an operator's address, or `admin key`),
/// what (method and path), when, from where, and the answer's status. Admin actions are the admin API's requests
/// that are not reads, and the database API's writes made by operators (the console, `stratus import`).
/// Sign-ins write their own entry; requests without a valid admin key or session are not actions.
struct AuditMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext
    let server: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard let containerID = Self.auditedContainer(request.method, path, request) else { return try await next(request, context) }
        // Who acts is who was admitted when the request came: a rotated admin key no longer names its holder after.
        let actor = try? await server.consoleSessions.actor(of: request)
        do {
            let response = try await next(request, context)
            await audit(request, context, actor: actor, containerID: containerID, status: Int(response.status.code))
            return response
        } catch {
            await audit(request, context, actor: actor, containerID: containerID, status: APIError(translating: error).status)
            throw error
        }
    }

    /// The first path segments under `/admin/1/` that name no container.
    private static let serverWide: Set<Substring> = [
        "containers", "activity", "quotas", "usage", "secrets", "operators", "audit", "session", "backups", "admin-key", "overview",
    ]

    /// Whether a request is audited and the container it acts on (`.some(nil)` for server-wide actions).
    private static func auditedContainer(_ method: HTTPRequest.Method, _ path: String, _ request: Request) -> String?? {
        if path.hasPrefix("/admin/1/") {
            guard method != .get, method != .head, !path.hasPrefix("/admin/1/session"), !path.hasPrefix("/admin/1/operators/enrolment") else { return nil }
            let first = path.split(separator: "/").dropFirst(2).first
            return .some(first.flatMap { serverWide.contains($0) ? nil : String($0) })
        }
        // Only operators' database writes: the admin key or a console cookie, and no API token.
        guard path.hasPrefix("/database/1/"), !DatabaseCall.onlyReads(path), request.uri.queryParameters["ckAPIToken"] == nil,
            request.headers[.authorization] != nil || ConsoleSessions.cookie(named: ConsoleSessions.cookieName, in: request) != nil,
            let place = ContainerPath(path)
        else { return nil }
        return .some(place.containerID)
    }

    private func audit(_ request: Request, _ context: Context, actor: AdminActor??, containerID: String?, status: Int) async {
        guard let actor = actor ?? nil else { return }
        let now = ServerClock.now()
        let entry = AuditEntry(
            id: AuditEntry.newID(time: now), time: now, actor: actor.name, containerID: containerID,
            action: "\(request.method.rawValue) \(request.uri.path)", status: status,
            address: ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        )
        do {
            try await server.store.appendAudit(entry)
        } catch {
            context.logger.error("an admin action could not be written to the audit log", metadata: [
                "stratus.action": "\(entry.action)", "stratus.actor": "\(entry.actor)", "stratus.error": "\(String(reflecting: error))",
            ])
        }
    }
}
