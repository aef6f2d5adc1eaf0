import Hummingbird
import Logging

/// Logs one line per request, with its status and duration, after the response is ready.
///
/// The line is handed to the logger's handler, which (with ``BufferedLogHandler``) only appends it to
/// a buffer: writing to the terminal or a file happens on another thread.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let micros = elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)",
                "path": "\(request.uri.path)",
                "status": "\(response.status.code)",
                "duration_ms": "\(Double(micros) / 1000)",
            ]
        )
        return response
    }
}
