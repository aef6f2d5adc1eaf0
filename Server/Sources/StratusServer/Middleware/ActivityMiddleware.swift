import Hummingbird

/// Records every answered request in the node's metrics (by route pattern), and in the ``ActivityLog`` except
/// the console's own files and its polls of the activity itself.
struct ActivityMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext
    let log: ActivityLog
    let metrics: ServerMetrics

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
        metrics.requestAnswered(method: request.method.rawValue, route: context.endpointPath ?? "unmatched", status: status, duration: elapsed)
        let path = request.uri.path
        if path.hasPrefix("/console") || path == "/admin/1/activity" { return }
        log.record(method: request.method.rawValue, path: path, status: status, microseconds: Self.microseconds(elapsed))
    }

    /// Whole microseconds of `elapsed`.
    static func microseconds(_ elapsed: Duration) -> Int64 {
        elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
    }
}
