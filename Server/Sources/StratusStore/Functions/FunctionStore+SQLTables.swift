import Foundation
import StratusModel

/// Functions' modules and bindings, written once over any backend's tables (``SQLTables``).
extension FunctionStore where Self: SQLTables {
    public func saveFunctionModule(_ module: StoredFunctionModule) async throws {
        try await transaction(
            [
                """
                INSERT INTO function_modules (container_id, environment, name, bytes, digest, size, entries, uploaded_at)
                VALUES (\(.text(module.containerID)), \(.text(module.environment.rawValue)), \(.text(module.name)), \(.bytes(module.bytes)), \
                \(.text(module.digest)), \(.integer(Int64(module.size))), \(.text(WebhookTables.list(module.entries))), \(.integer(module.uploadedAt)))
                ON CONFLICT (container_id, environment, name) DO UPDATE SET bytes = excluded.bytes, digest = excluded.digest, \
                size = excluded.size, entries = excluded.entries, uploaded_at = excluded.uploaded_at
                """,
            ],
            emitting: [.functionsChanged(containerID: module.containerID)]
        )
    }

    public func functionModule(containerID: String, environment: Environment, name: String) async throws -> StoredFunctionModule? {
        try await rows("""
            SELECT container_id, environment, name, bytes, digest, size, entries, uploaded_at FROM function_modules
            WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND name = \(.text(name))
            """).first.map { try FunctionTables.module($0, bytes: try $0.bytes("bytes")) }
    }

    public func functionModules(containerID: String) async throws -> [StoredFunctionModule] {
        try await rows("""
            SELECT container_id, environment, name, digest, size, entries, uploaded_at FROM function_modules
            WHERE container_id = \(.text(containerID)) ORDER BY environment, name
            """).map { try FunctionTables.module($0, bytes: []) }
    }

    public func deleteFunctionModule(containerID: String, environment: Environment, name: String) async throws {
        let key: SQLFragment = "container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue))"
        try await transaction(
            [
                "SELECT name FROM function_bindings WHERE \(key) AND module = \(.text(name)) ORDER BY name",
                "DELETE FROM function_modules WHERE \(key) AND name = \(.text(name)) RETURNING name",
            ],
            then: { results in
                if !results[0].isEmpty {
                    let names = try results[0].map { try $0.text("name") }.joined(separator: ", ")
                    throw StorageError(.conflict, "the module \(name) is used by: \(names); delete or rebind those functions first")
                }
                if results[1].isEmpty { throw StorageError(.notFound, "the container has no module \(name) in \(environment.rawValue)") }
                return [.functionsChanged(containerID: containerID)]
            }
        )
    }

    public func saveFunctionBinding(_ binding: FunctionBinding) async throws {
        let limits = String(decoding: (try? JSONEncoder().encode(binding.limits)) ?? Data("{}".utf8), as: UTF8.self)
        let endpointID = FunctionBinding.eventEndpointID(environment: binding.environment, name: binding.name)
        var statements: [SQLFragment] = [
            """
            SELECT name FROM function_modules WHERE container_id = \(.text(binding.containerID)) \
            AND environment = \(.text(binding.environment.rawValue)) AND name = \(.text(binding.module))
            """,
            """
            INSERT INTO function_bindings (container_id, environment, name, module, entry, trigger, record_types, databases, event_types,
                run_as_role, grants, limits, enabled, created_at, updated_at)
            VALUES (\(.text(binding.containerID)), \(.text(binding.environment.rawValue)), \(.text(binding.name)), \(.text(binding.module)), \
            \(.text(binding.entry)), \(.text(binding.trigger.rawValue)), \(.text(WebhookTables.list(binding.recordTypes))), \
            \(.text(WebhookTables.list(binding.databases))), \(.text(WebhookTables.list(binding.eventTypes))), \(SQLValue(binding.runAsRole)), \
            \(.text(WebhookTables.list(binding.grants))), \(.text(limits)), \(.bool(binding.isEnabled)), \(.integer(binding.createdAt)), \
            \(.integer(binding.updatedAt)))
            ON CONFLICT (container_id, environment, name) DO UPDATE SET module = excluded.module, entry = excluded.entry, \
            trigger = excluded.trigger, record_types = excluded.record_types, databases = excluded.databases, event_types = excluded.event_types, \
            run_as_role = excluded.run_as_role, grants = excluded.grants, limits = excluded.limits, enabled = excluded.enabled, \
            updated_at = excluded.updated_at
            """,
        ]
        if binding.trigger == .afterSave {
            let events = binding.eventTypes.isEmpty ? FunctionTables.recordEvents : binding.eventTypes
            statements.append("""
                INSERT INTO webhook_endpoints (id, container_id, environment, url, description, event_types, databases, zone_names, record_types,
                    sealed_secrets, enabled, created_at)
                VALUES (\(.text(endpointID)), \(.text(binding.containerID)), \(.text(binding.environment.rawValue)), \
                \(.text(FunctionBinding.eventEndpointURL(name: binding.name))), \(.text("afterSave function \(binding.name)")), \
                \(.text(WebhookTables.list(events))), \(.text(WebhookTables.list(binding.databases))), '[]', \
                \(.text(WebhookTables.list(binding.recordTypes))), '[]', \(.bool(binding.isEnabled)), \(.integer(binding.createdAt)))
                ON CONFLICT (id) DO UPDATE SET event_types = excluded.event_types, databases = excluded.databases, \
                record_types = excluded.record_types, enabled = excluded.enabled, disabled_reason = NULL, failing_since = NULL
                """)
        } else {
            statements.append("DELETE FROM webhook_deliveries WHERE endpoint_id = \(.text(endpointID))")
            statements.append("DELETE FROM webhook_endpoints WHERE id = \(.text(endpointID))")
        }
        try await transaction(statements, then: { results in
            if results[0].isEmpty {
                throw StorageError(.notFound, "the container has no module \(binding.module) in \(binding.environment.rawValue)")
            }
            return [.functionsChanged(containerID: binding.containerID)]
        })
    }

    public func deleteFunctionBinding(containerID: String, environment: Environment, name: String) async throws {
        let endpointID = FunctionBinding.eventEndpointID(environment: environment, name: name)
        try await transaction(
            [
                """
                DELETE FROM function_bindings WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) \
                AND name = \(.text(name)) RETURNING name
                """,
                "DELETE FROM webhook_deliveries WHERE endpoint_id = \(.text(endpointID))",
                "DELETE FROM webhook_endpoints WHERE id = \(.text(endpointID))",
            ],
            then: { results in
                if results[0].isEmpty { throw StorageError(.notFound, "the container has no function \(name) in \(environment.rawValue)") }
                return [.functionsChanged(containerID: containerID)]
            }
        )
    }

    public func functionBindings(containerID: String) async throws -> [FunctionBinding] {
        try await rows("""
            SELECT container_id, environment, name, module, entry, trigger, record_types, databases, event_types, run_as_role, grants, limits,
                enabled, created_at, updated_at
            FROM function_bindings WHERE container_id = \(.text(containerID)) ORDER BY environment, name
            """).map { row in
            FunctionBinding(
                containerID: try row.text("container_id"), environment: Environment(rawValue: try row.text("environment")) ?? .development,
                name: try row.text("name"), module: try row.text("module"), entry: try row.text("entry"),
                trigger: FunctionTrigger(rawValue: try row.text("trigger")) ?? .callable,
                recordTypes: WebhookTables.list(try row.text("record_types")), databases: WebhookTables.list(try row.text("databases")),
                eventTypes: WebhookTables.list(try row.text("event_types")), runAsRole: try row.optionalText("run_as_role"),
                grants: WebhookTables.list(try row.text("grants")),
                limits: (try? JSONDecoder().decode(FunctionBinding.Limits.self, from: Data(try row.text("limits").utf8))) ?? .init(),
                isEnabled: try row.bool("enabled"), createdAt: try row.integer("created_at"), updatedAt: try row.integer("updated_at")
            )
        }
    }
}

enum FunctionTables {
    /// The record events an `afterSave` function receives unless it names some.
    static let recordEvents = ["record.created", "record.updated", "record.deleted"]

    static func module(_ row: SQLRow, bytes: [UInt8]) throws -> StoredFunctionModule {
        StoredFunctionModule(
            containerID: try row.text("container_id"), environment: Environment(rawValue: try row.text("environment")) ?? .development,
            name: try row.text("name"), bytes: bytes, digest: try row.text("digest"), size: Int(try row.integer("size")),
            entries: WebhookTables.list(try row.text("entries")), uploadedAt: try row.integer("uploaded_at")
        )
    }
}
