import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// What load balancers, orchestrators and monitoring ask a node:
/// - `GET /healthz`: the process is up and answering (it touches nothing else).
/// - `GET /readyz`: the node can serve: its database and blob store answer. `503 TRY_AGAIN_LATER` with
///   `retryAfter`, saying which is down, otherwise; take the node out of rotation until it is ready again.
/// - `GET /metrics`: the node's metrics in Prometheus's text format (``ServerMetrics``).
struct HealthController {
    let server: ServerState

    /// How long each dependency may take to answer a readiness check.
    static let checkDeadline = Duration.seconds(3)

    func register(on router: Router<StratusRequestContext>) {
        router.get("healthz") { _, _ in status("ok") }
        router.get("readyz", use: ready)
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: server.metrics.exposition(store: server.store, notificationListeners: server.notifier.waiters.count)))
            )
        }
    }

    @Sendable func ready(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let store = server.store
        let blobs = server.blobs
        async let database = Self.failure(within: Self.checkDeadline) { try await store.checkAvailable() }
        async let blobStore = Self.failure(within: Self.checkDeadline) { try await blobs.checkAvailable() }
        let problems = [await database.map { "the database: \($0)" }, await blobStore.map { "the blob store: \($0)" }].compactMap { $0 }
        guard problems.isEmpty else {
            throw APIError(.tryAgainLater, "node \(server.configuration.nodeName) is not ready: " + problems.joined(separator: "; "), retryAfter: 5)
        }
        return status("ready", node: server.configuration.nodeName)
    }

    /// What went wrong with `check`, or `nil` when it succeeded within `deadline`.
    private static func failure(within deadline: Duration, _ check: @escaping @Sendable () async throws -> Void) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                do {
                    try await check()
                    return nil
                } catch let error as StorageError {
                    return error.message
                } catch {
                    return "\(error)"
                }
            }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return "no answer within \(deadline.components.seconds) seconds"
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }
}

/// `{"status": ..., "node": ...}`.
private func status(_ text: String, node: String? = nil) -> Response {
    var writer = JSONWriter()
    writer.beginObject()
    if let node {
        writer.key("node")
        writer.string(node)
    }
    writer.key("status")
    writer.string(text)
    writer.endObject()
    return JSONResponse.make(writer)
}
