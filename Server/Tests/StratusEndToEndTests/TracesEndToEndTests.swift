import Foundation
import StratusTestSupport
import Testing

/// Traces from a `stratus serve` process with `--otlp-endpoint` to a collector on loopback (OTLP/HTTP, JSON): each
/// request's span, with the record engine's, SQL's and S3's spans beneath it, under the caller's `traceparent`.
@Suite struct TracesEndToEndTests {
    static let container = "iCloud.com.example.Traces"

    @Test("a save's trace reaches the collector: the request under the caller's span, the record engine, SQL beneath it, and the upload's S3 PUT")
    func requestTraces() async throws {
        guard let storage = try await S3TestStorage.make("traces") else { return }
        let collector = try WebhookReceiver(answer: ("application/json", "{}"))
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(
            dataFolder: folder, arguments: ["--quiet", "--otlp-endpoint", "http://127.0.0.1:\(collector.port)"] + storage.serveArguments,
            // JSON rather than protobuf, so that the test reads what arrives; batches go out every 100 ms.
            environment: ["OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_BSP_SCHEDULE_DELAY": "100"]
        )
        try await server.start()
        defer { server.stop() }
        let apiToken = try await server.createContainer(Self.container)
        let user = try await SignedInUser.signUp("traces@example.com", container: Self.container, apiToken: apiToken, on: server)
        let uploaded = try await user.upload(GeneratedFile(size: 64 * 1024), through: StreamingHTTP(port: server.port))

        // The app's own span, as a client that traces would send it (W3C Trace Context).
        let traceID = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let callerSpanID = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let file = String(decoding: try JSONSerialization.data(withJSONObject: uploaded), as: UTF8.self)
        let (status, saved) = try await server.send(
            "POST", "/database/1/\(Self.container)/development/public/records/modify?\(user.query)",
            body: #"{"operations":[{"operationType":"create","record":{"recordName":"traced","recordType":"Message","fields":{"image":{"value":\#(file)}}}}]}"#,
            headers: ["traceparent": "00-\(traceID)-\(callerSpanID)-01"]
        )
        #expect(status == 200, "\(saved)")

        // Spans arrive in batches as they end, a parent after its children: wait until each awaited one is in.
        try await collector.waitUntil("the save's and the upload's spans", within: 120) { received in
            let spans = ExportedSpan.all(in: received)
            let trace = spans.filter { $0.traceID == traceID }
            let put = spans.first { $0.name == "S3 PUT" }
            return trace.contains { $0.kind == 2 } && trace.contains { $0.name == "store.modifyRecords" }
                && trace.contains { $0.attributes["db.system.name"] != nil } && spans.contains { $0.spanID == put?.parentID }
        }
        let spans = ExportedSpan.all(in: collector.received)
        let trace = spans.filter { $0.traceID == traceID }
        let summary = trace.map { "\($0.name) (\($0.spanID) under \($0.parentID))" }
        let request = try #require(trace.first { $0.kind == 2 }, "a server span in the caller's trace: \(summary)")
        #expect(request.parentID == callerSpanID, "the request's span is a child of the caller's: \(summary)")
        #expect(request.name.hasPrefix("POST ") && request.name.hasSuffix("/records/modify"), "\(request.name)")
        #expect(request.attributes["http.response.status_code"] == "200", "\(request.attributes)")
        #expect(request.attributes["stratus.container"] == Self.container, "\(request.attributes)")
        #expect(request.attributes["stratus.user"] == user.userRecordName, "\(request.attributes)")

        let engine = try #require(trace.first { $0.name == "store.modifyRecords" }, "the record engine's span: \(summary)")
        #expect(engine.parentID == request.spanID, "the engine works inside the request: \(summary)")
        #expect(engine.attributes["stratus.database"] == "public" && engine.attributes["stratus.operations"] == "1", "\(engine.attributes)")
        let byID = Dictionary(trace.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
        func ancestors(of span: ExportedSpan) -> [String] {
            var chain: [String] = []
            var parent = span.parentID
            while let next = byID[parent], !chain.contains(next.spanID) {
                chain.append(next.spanID)
                parent = next.parentID
            }
            return chain
        }
        let sql = trace.filter { $0.attributes["db.system.name"] != nil }
        #expect(sql.contains { ancestors(of: $0).contains(engine.spanID) && $0.kind == 3 }, "SQL spans beneath the engine's: \(summary)")

        // The upload went to S3 inside its own request's span.
        let put = try #require(spans.first { $0.name == "S3 PUT" }, "an S3 PUT span: \(spans.map(\.name))")
        let upload = try #require(spans.first { $0.spanID == put.parentID }, "the PUT's parent among \(spans.map(\.name))")
        #expect(upload.kind == 2 && upload.name.hasPrefix("POST /assets/1/upload"), "the PUT is a child of the upload request: \(upload.name)")
        #expect(put.attributes["http.response.status_code"] == "200", "\(put.attributes)")

        // Every span says which service and node it came from; no token in a query string reaches the collector.
        #expect(collector.received.allSatisfy { $0.body.contains(#""service.name","value":{"stringValue":"stratus"}"#) })
        #expect(!collector.received.contains { $0.body.contains(apiToken) }, "the API token was exported")
        #expect(!spans.contains { $0.attributes["url.path"] != nil }, "paths carry upload capabilities: only routes are exported")
    }

    @Test("an endpoint that is not an http(s) URL stops `stratus serve` with a clear message, before the data folder is made")
    func badEndpoint() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let (status, output) = try await EndToEndTests.run(["serve", "--port", "0", "--data", folder, "--otlp-endpoint", "collector:4318"])
        #expect(status != 0, "\(output)")
        #expect(output.contains("--otlp-endpoint must be the http or https URL of an OpenTelemetry collector"), "\(output)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/stratus.sqlite"), "nothing was opened")
    }
}

/// One span as an OTLP/HTTP JSON export carries it; ids in hexadecimal whichever way the body wrote them.
struct ExportedSpan {
    var traceID: String
    var spanID: String
    var parentID: String
    var name: String
    /// 1 internal, 2 server, 3 client.
    var kind: Int
    /// Each attribute's value as text.
    var attributes: [String: String]

    /// Every span of every export received.
    static func all(in received: [WebhookReceiver.Received]) -> [ExportedSpan] {
        received.flatMap { export -> [ExportedSpan] in
            let resources = export.json["resourceSpans"] as? [[String: Any]] ?? []
            return resources.flatMap { resource in
                (resource["scopeSpans"] as? [[String: Any]] ?? []).flatMap { scope in
                    (scope["spans"] as? [[String: Any]] ?? []).map(ExportedSpan.init)
                }
            }
        }
    }

    init(_ json: [String: Any]) {
        traceID = Self.hex(json["traceId"])
        spanID = Self.hex(json["spanId"])
        parentID = Self.hex(json["parentSpanId"])
        name = json["name"] as? String ?? ""
        kind = json["kind"] as? Int ?? 0
        var attributes: [String: String] = [:]
        for attribute in json["attributes"] as? [[String: Any]] ?? [] {
            guard let key = attribute["key"] as? String, let value = (attribute["value"] as? [String: Any])?.values.first else { continue }
            attributes[key] = "\(value)"
        }
        self.attributes = attributes
    }

    /// An id as lowercase hexadecimal: OTLP's JSON writes hex, protobuf's JSON mapping base64.
    static func hex(_ value: Any?) -> String {
        guard let text = value as? String, !text.isEmpty else { return "" }
        if text.count % 2 == 0, text.allSatisfy(\.isHexDigit), text.count == 32 || text.count == 16 { return text.lowercased() }
        guard let bytes = Data(base64Encoded: text) else { return text }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }
}
