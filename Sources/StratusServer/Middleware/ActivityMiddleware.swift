import Hummingbird

/// Records every answered request in the ``ActivityLog``, except the console's own files and its polls of
/// the activity itself.
struct ActivityMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext
    let log: ActivityLog

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if path.hasPrefix("/console") || path == "/admin/1/activity" { return try await next(request, context) }
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            log.record(method: request.method.rawValue, path: path, status: Int(response.status.code), microseconds: Self.microseconds(since: start))
            return response
        } catch let error as any HTTPResponseError {
            log.record(method: request.method.rawValue, path: path, status: Int(error.status.code), microseconds: Self.microseconds(since: start))
            throw error
        }
    }

    /// Whole microseconds since `start`.
    static func microseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
    }
}
