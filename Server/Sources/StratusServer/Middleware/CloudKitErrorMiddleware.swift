import StratusServices
import Hummingbird
import Logging
import StratusModel

/// Answers every failure with a CloudKit error body and its status; unexpected errors are logged
/// with their details and answered with a generic `INTERNAL_ERROR`.
struct CloudKitErrorMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = APIError(translating: error)
            context.notes.noteFailure(apiError.code.rawValue)
            if apiError.code == .internalError {
                context.logger.error("request failed", metadata: ["stratus.error": "\(String(reflecting: apiError.underlying ?? error))"])
            }
            let status = HTTPResponse.Status(code: apiError.status)
            var headers = HTTPFields()
            if let retryAfter = apiError.retryAfter { headers[.retryAfter] = String(retryAfter) }
            return JSONResponse.make(apiError.body(requestID: context.id), status: status, headers: headers)
        }
    }
}
