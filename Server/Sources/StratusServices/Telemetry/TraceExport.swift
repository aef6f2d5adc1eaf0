import Foundation
import OTel
import ServiceLifecycle

/// Sends the process's spans to an OpenTelemetry collector over OTLP/HTTP (`--otlp-endpoint`), through swift-otel.
/// The standard `OTEL_*` environment variables tune the exporter (protocol, headers, sampler, batch delay, service
/// name); see docs/operations.md#traces.
public enum TraceExport {
    /// The URL spans are posted to: `endpoint`, a collector's base URL (`http://collector:4318`), with the traces
    /// path added unless it is there; `nil` for anything but an http(s) URL with a host.
    public static func tracesURL(_ endpoint: String) -> String? {
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.query == nil else { return nil }
        if endpoint.hasSuffix("/v1/traces") { return endpoint }
        return (endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint) + "/v1/traces"
    }

    /// Makes the exporter the process's tracer and returns the service that sends spans in batches: run it with the
    /// server, and set ``ServerConfiguration/tracesRequests``. Once per process.
    /// - Parameters:
    ///   - tracesURL: where spans are posted (``tracesURL(_:)``).
    ///   - nodeName: this node's name, as the spans' `service.instance.id`.
    public static func start(tracesURL: String, nodeName: String) throws -> some Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "stratus"
        configuration.resourceAttributes = ["service.instance.id": nodeName]
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        configuration.traces.otlpExporter.endpoint = tracesURL
        return try OTel.bootstrap(configuration: configuration)
    }
}
