import StratusServices
import Hummingbird
import StratusModel

/// Records every answered request in the node's metrics (by route pattern) and in the ``ActivityLog`` (except the
/// console's own files and its polls of the activity itself), and counts and logs requests to a container
/// environment in the ``TelemetryRecorder``.
struct ActivityMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext
    let server: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context, status: Int(response.status.code), since: start)
            return response
        } catch let error as any HTTPResponseError {
            record(request, context, status: Int(error.status.code), since: start)
            throw error
        }
    }

    private func record(_ request: Request, _ context: Context, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let microseconds = Self.microseconds(elapsed)
        server.metrics.requestAnswered(method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: status, duration: elapsed)
        let path = request.uri.path
        if path.hasPrefix("/console") || path == "/admin/1/activity" { return }
        server.activity.record(method: request.method.rawValue, path: path, status: status, microseconds: microseconds)
        let notes = context.notes.current
        guard let place = ContainerPath(path) else { return }
        guard let environment = notes.environment ?? place.environment.flatMap({ Environment(rawValue: String($0)) }) else { return }
        server.telemetry.record(
            containerID: notes.containerID ?? place.containerID, environment: environment, time: ServerClock.now(), method: request.method.rawValue,
            operation: String(place.operation), status: status, errorCode: notes.errorCode ?? (status >= 400 ? "HTTP_\(status)" : nil), notes: notes, microseconds: microseconds,
            address: ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        )
    }

    /// Whole microseconds of `elapsed`.
    static func microseconds(_ elapsed: Duration) -> Int64 {
        elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
    }
}
