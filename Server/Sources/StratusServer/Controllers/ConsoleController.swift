import StratusServices
import HTTPTypes
import Hummingbird
import StratusConsole

/// Serves the web console at `/console/`: static files only. Everything the console does goes through the
/// admin API and the CloudKit endpoints, with a console session.
struct ConsoleController {
    let files: [String: ConsoleFile]
    /// Where asset images may also come from (the configured public URL), besides this origin.
    let imageSources: String

    func register(on router: Router<StratusRequestContext>) {
        // `/console` and `/console/` are one route; the page names its files by absolute paths.
        router.get("console", use: serve)
        router.get("console/**", use: serve)
    }

    @Sendable func serve(_ request: Request, context: StratusRequestContext) async throws -> Response {
        var path = context.parameters.getCatchAll().joined(separator: "/")
        if path.isEmpty { path = "index.html" }
        guard let file = files[path] else {
            throw APIError(.notFound, "the console has no file \(path)")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.contentType,
                .cacheControl: "no-cache",
                .contentSecurityPolicy: """
                    default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: \(imageSources); \
                    connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'
                    """,
                .xContentTypeOptions: "nosniff",
                .referrerPolicy: "no-referrer",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: file.bytes))
        )
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
