import StratusServices
import HTTPTypes
import Hummingbird
import Instrumentation
import Tracing

/// Starts a server span for each request while traces are exported (``ServerConfiguration/tracesRequests``): named
/// after its method and route, with its status, the container, environment and user it reached and the code it
/// failed with. A caller's W3C `traceparent` header makes it a child of the caller's span; the store's spans (the
/// record engine, SQL, object storage) are its children. See docs/operations.md#traces.
///
/// Neither paths nor query strings are recorded, only the route they matched: query strings carry API and session
/// tokens, and upload and download paths carry capabilities.
struct RequestSpanMiddleware: RouterMiddleware {
    typealias Context = StratusRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = InstrumentationContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HeaderExtractor())
        return try await withSpan("\(request.method.rawValue) unmatched", context: parent, ofKind: .server) { span in
            span.attributes["http.request.method"] = request.method.rawValue
            span.attributes["user_agent.original"] = request.headers[.userAgent]
            do {
                let response = try await next(request, context)
                describe(span, method: request.method.rawValue, status: Int(response.status.code), context: context)
                return response
            } catch let error as any HTTPResponseError {
                describe(span, method: request.method.rawValue, status: Int(error.status.code), context: context)
                throw error
            }
        }
    }

    /// Names the span after its route once the router has matched one, and adds what the request reached.
    private func describe(_ span: any Span, method: String, status: Int, context: Context) {
        if let route = context.endpointPath {
            span.operationName = "\(method) \(route)"
            span.attributes["http.route"] = route
        }
        span.attributes["http.response.status_code"] = status
        let notes = context.notes.current
        span.attributes["stratus.container"] = notes.containerID
        span.attributes["stratus.environment"] = notes.environment?.rawValue
        span.attributes["stratus.user"] = notes.userRecordName
        span.attributes["stratus.error_code"] = notes.errorCode
        if status >= 500 { span.setStatus(SpanStatus(code: .error)) }
    }

    private struct HeaderExtractor: Extractor {
        func extract(key name: String, from headers: HTTPFields) -> String? {
            HTTPField.Name(name).flatMap { headers[$0] }
        }
    }
}
