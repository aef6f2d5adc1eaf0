import Hummingbird

/// A bare Hummingbird application with one route: its async connection handling, nothing of Stratus.
enum HummingbirdServer {
    static func run(port: Int) async throws {
        let router = Router()
        router.get("/healthz") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}
