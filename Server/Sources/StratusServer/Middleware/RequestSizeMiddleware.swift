import StratusServices
import Hummingbird
import StratusModel

/// Refuses request targets and headers larger than any CloudKit client sends, with a CloudKit error:
/// `414` for a long path or query (tokens travel in the query), `431` for large headers. Larger still,
/// the HTTP parser refuses them first (``ConnectionGuard`` answers `431`).
struct RequestSizeMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext

    static let maximumTargetBytes = RequestLimits.targetBytes
    static let maximumHeaderBytes = RequestLimits.headerBytes
    static let maximumHeadersBytes = RequestLimits.headersBytes

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let target = request.head.path ?? ""
        guard target.utf8.count <= Self.maximumTargetBytes else {
            throw APIError(.badRequest, "the request's path and query are longer than \(Self.maximumTargetBytes) bytes", status: 414)
        }
        var total = 0
        for field in request.headers {
            let size = field.value.utf8.count
            total += size + field.name.rawName.utf8.count
            guard size <= Self.maximumHeaderBytes else {
                throw APIError(.badRequest, "header \(field.name.canonicalName) is longer than \(Self.maximumHeaderBytes) bytes", status: 431)
            }
        }
        guard total <= Self.maximumHeadersBytes else {
            throw APIError(.badRequest, "the request's headers are larger than \(Self.maximumHeadersBytes) bytes", status: 431)
        }
        return try await next(request, context)
    }
}
