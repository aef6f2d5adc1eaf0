import StratusModel
import Tracing

/// Spans of the store's work (the record engine, SQL, object storage), as children of the request being traced.
///
/// A span starts only inside a traced request: the server's request span sets the task's instrumentation context
/// when traces are exported. Background work, and every request while traces are off, runs without one, at the
/// cost of reading a task-local value. See docs/operations.md#traces.
///
/// ```swift
/// let page = try await StoreSpans.run("store.queryRecords", database: query.zone.database) { try await runQuery(planned) }
/// ```
public enum StoreSpans {
    /// Whether the calling task is inside a traced request.
    public static var isTracing: Bool { InstrumentationContext.current != nil }

    /// Runs `body` in a span named `name`, with `attributes`, when the calling task is inside a traced request;
    /// else just runs it. An error thrown by `body` is recorded on the span.
    public static func run<T>(
        _ name: String, kind: SpanKind = .internal, attributes: SpanAttributes = [:], isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        try await run(name, kind: kind, attributes: attributes, isolation: isolation) { _ in try await body() }
    }

    /// Runs `body` in a span named `name` when the calling task is inside a traced request, like
    /// ``run(_:kind:attributes:isolation:_:)``; what `body` notes in the attributes it is handed (such as an
    /// answer's status) is added to the span when it ends.
    public static func run<T>(
        _ name: String, kind: SpanKind = .internal, attributes: SpanAttributes = [:], isolation: isolated (any Actor)? = #isolation,
        _ body: (_ noted: inout SpanAttributes) async throws -> T
    ) async rethrows -> T {
        var noted = SpanAttributes()
        guard isTracing else { return try await body(&noted) }
        return try await withSpan(name, ofKind: kind, isolation: isolation) { span in
            span.attributes.merge(attributes)
            defer { span.attributes.merge(noted) }
            return try await body(&noted)
        }
    }

    /// Runs `body` in a span of the record engine that names the database it works in.
    public static func run<T>(
        _ name: String, database: DatabaseRef, attributes: SpanAttributes = [:], isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        guard isTracing else { return try await body() }
        var all = attributes
        all["stratus.container"] = database.containerID
        all["stratus.environment"] = database.environment.rawValue
        all["stratus.database"] = database.scope.rawValue
        return try await run(name, attributes: all, isolation: isolation, body)
    }

    /// Runs a backend's write of a record batch (``RecordStore/modifyRecords(_:)``) in the record engine's span.
    public static func modifyRecords<T>(_ batch: RecordBatch, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async rethrows -> T {
        guard isTracing else { return try await body() }
        let attributes: SpanAttributes = [
            "stratus.zone": .string(batch.zone.zoneName), "stratus.operations": .int64(Int64(batch.operations.count)), "stratus.atomic": .bool(batch.atomic),
        ]
        return try await run("store.modifyRecords", database: batch.zone.database, attributes: attributes, isolation: isolation, body)
    }

    /// Runs `body` in a client span of a database call. `system` is the database's name in OpenTelemetry's
    /// conventions (`sqlite`, `postgresql`); `statement` the SQL text when one statement is known (its values are
    /// bound apart, so none is recorded), read only when the request is traced. The span is named after the
    /// system and `operation`, else the statement's first word (`postgresql SELECT`).
    public static func sql<T>(
        _ operation: String? = nil, system: String, statement: @autoclosure () -> String? = nil, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async rethrows -> T {
        guard isTracing else { return try await body() }
        var attributes: SpanAttributes = ["db.system.name": .string(system)]
        var name = operation
        if let text = statement() {
            attributes["db.query.text"] = text
            let verb = text.split(maxSplits: 1, whereSeparator: \.isWhitespace).first.map { $0.uppercased() }
            attributes["db.operation.name"] = verb
            name = name ?? verb
        }
        return try await run("\(system) \(name ?? "statement")", kind: .client, attributes: attributes, isolation: isolation, body)
    }
}
