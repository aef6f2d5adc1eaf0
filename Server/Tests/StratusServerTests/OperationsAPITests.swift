import Foundation
import StratusServer
import StratusServices
import Testing

/// What load balancers and monitoring ask a node: `/healthz`, `/readyz`, `/metrics`.
@Suite struct OperationsAPITests {
    @Test("/readyz names the node when its database and blob store answer, and says 503 with retryAfter while the blob store cannot be written")
    func readiness() async throws {
        try await TestServer.run(configure: { $0.nodeName = "web-7" }) { client in
            let ready = try await client.send(.get, "/readyz")
            #expect(ready.status == 200)
            #expect(ready["node"] == .string("web-7"))
            #expect(ready["status"] == .string("ready"))

            // The blob store's folder disappears (a volume unmounted): not ready, though the process is up.
            let blobs = client.parts.blobs.root.appendingPathComponent("blobs").path
            try FileManager.default.removeItem(atPath: blobs)
            let notReady = try await client.send(.get, "/readyz")
            #expect(notReady.status == 503)
            #expect(notReady.errorCode == "TRY_AGAIN_LATER")
            #expect(notReady["retryAfter"] != nil)
            #expect(notReady["reason"]?.stringValue?.contains("the blob store") == true)
            #expect(try await client.send(.get, "/healthz").status == 200)

            try FileManager.default.createDirectory(atPath: blobs, withIntermediateDirectories: true)
            #expect(try await client.send(.get, "/readyz").status == 200)
        }
    }

    @Test("/metrics counts requests by route pattern and status, per node, and reports the database pool and notifications")
    func metrics() async throws {
        try await TestServer.run(configure: { $0.nodeName = "web-7" }) { client in
            let token = try await client.createContainer()
            _ = try await client.signUp("metrics@example.com", token: token)
            _ = try await client.send(.get, "/healthz")
            _ = try await client.send(.get, "/healthz")
            _ = try await client.send(.get, "/no/such/route")
            let (reply, bytes) = try await client.sendBytes(.get, "/metrics")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType]?.hasPrefix("text/plain") == true)
            let text = String(decoding: bytes, as: UTF8.self)
            let lines = text.split(separator: "\n").map(String.init)
            func sample(_ name: String, _ labels: [String]) -> String? {
                lines.first { $0.hasPrefix(name + "{") && labels.allSatisfy($0.contains) }
            }
            #expect(sample("stratus_http_requests_total", [#"node="web-7""#, #"route="/healthz""#, #"status="200""#])?.hasSuffix(" 2") == true, "\(text)")
            #expect(sample("stratus_http_requests_total", [#"status="404""#])?.hasSuffix(" 1") == true)
            #expect(!text.contains("/no/such/route"), "a path no route matches is not a label")
            // Routes are counted by pattern: the container in the path is not a label of its own.
            #expect(sample("stratus_http_requests_total", [#"route="/auth/1/{container}/{environment}/signup""#, #"status="201""#]) != nil)
            #expect(sample("stratus_http_request_duration_seconds_bucket", [#"route="/healthz""#, #"le="+Inf""#])?.hasSuffix(" 2") == true)
            #expect(sample("stratus_database_connections_limit", [#"node="web-7""#]) != nil)
            #expect(sample("stratus_database_connections_in_use", [#"node="web-7""#]) != nil)
            let listeners = sample("stratus_notification_listeners", [#"node="web-7""#])
            #expect(listeners?.split(separator: " ").last.flatMap { Double($0) } == 0, "no long poll or stream is held: \(listeners ?? "none")")
            #expect(!text.contains(TestServer.container), "no series is labelled with a path's values")
        }
    }
}
