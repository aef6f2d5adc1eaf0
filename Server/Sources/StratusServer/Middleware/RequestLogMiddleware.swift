import StratusServices
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
        let micros = ActivityMiddleware.microseconds(ContinuousClock.now - start)
        context.logger.info(
            "request",
            metadata: [
                "method": .string(request.method.rawValue),
                "path": .string(request.uri.path),
                "status": .stringConvertible(Int(response.status.code)),
                "duration_ms": .string(Self.milliseconds(micros)),
            ]
        )
        return response
    }

    /// Microseconds as milliseconds with three decimals ("12.345"), without floating-point formatting.
    static func milliseconds(_ micros: Int64) -> String {
        let fraction = String(micros % 1000)
        return String(micros / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
