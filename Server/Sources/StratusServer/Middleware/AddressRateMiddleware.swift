import Hummingbird
import StratusServices
import StratusStore

/// Holds every client address to its rate (``Quotas/addressRequestsPerMinute``) of the container a request names
/// (`/database/1/{container}/...`, `/auth/1/...`, `/account/1/...`, `/device/1/...`, `/functions/1/...`), else to the
/// defaults.
///
/// The console, the admin API and health checks are not counted, and neither are operators (the admin key or a
/// console session) over the rate.
struct AddressRateMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext
    let server: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/console") || path.hasPrefix("/admin/") || path.hasPrefix("/health") || path == "/metrics" {
            return try await next(request, context)
        }
        let address = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        do {
            try await server.throttle.admit(.address(address), containerID: ContainerPath(path)?.containerID)
        } catch let error as ServiceError where error.kind == .throttled {
            guard try await DatabaseCall.isOperator(request, using: server) else { throw error }
        }
        return try await next(request, context)
    }
}
