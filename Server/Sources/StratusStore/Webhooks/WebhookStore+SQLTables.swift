import Foundation
import StratusModel

/// Webhook endpoints and deliveries, written once over any backend's tables (``SQLTables``). Deliveries take change
/// positions as ids, so that their order is the order of the commits that queued them.
extension WebhookStore where Self: SQLTables {
    public func createWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws {
        try await execute(["""
            INSERT INTO webhook_endpoints (id, container_id, environment, url, description, event_types, databases, zone_names, record_types,
                sealed_secrets, enabled, disabled_reason, failing_since, created_at)
            VALUES (\(.text(endpoint.id)), \(.text(endpoint.containerID)), \(.text(endpoint.environment.rawValue)), \(.text(endpoint.url)), \
            \(.text(endpoint.description)), \(.text(WebhookTables.list(endpoint.eventTypes))), \(.text(WebhookTables.list(endpoint.databases))), \
            \(.text(WebhookTables.list(endpoint.zoneNames))), \(.text(WebhookTables.list(endpoint.recordTypes))), \
            \(.text(WebhookTables.list(endpoint.sealedSecrets))), \(.bool(endpoint.isEnabled)), \(SQLValue(endpoint.disabledReason)), \
            \(SQLValue(endpoint.failingSince)), \(.integer(endpoint.createdAt)))
            """])
    }

    public func updateWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws {
        let updated = try await execute(["""
            UPDATE webhook_endpoints SET url = \(.text(endpoint.url)), description = \(.text(endpoint.description)), \
            event_types = \(.text(WebhookTables.list(endpoint.eventTypes))), databases = \(.text(WebhookTables.list(endpoint.databases))), \
            zone_names = \(.text(WebhookTables.list(endpoint.zoneNames))), record_types = \(.text(WebhookTables.list(endpoint.recordTypes))), \
            sealed_secrets = \(.text(WebhookTables.list(endpoint.sealedSecrets))), enabled = \(.bool(endpoint.isEnabled)), \
            disabled_reason = \(SQLValue(endpoint.disabledReason)), failing_since = \(SQLValue(endpoint.failingSince))
            WHERE id = \(.text(endpoint.id)) AND container_id = \(.text(endpoint.containerID)) RETURNING id
            """])
        if updated[0].isEmpty { throw WebhookTables.noSuchEndpoint }
    }

    public func deleteWebhookEndpoint(id: String, containerID: String) async throws {
        try await transaction(
            [
                "DELETE FROM webhook_endpoints WHERE id = \(.text(id)) AND container_id = \(.text(containerID)) RETURNING id",
                "DELETE FROM webhook_deliveries WHERE endpoint_id = \(.text(id)) AND container_id = \(.text(containerID))",
            ],
            then: { results in
                if results[0].isEmpty { throw WebhookTables.noSuchEndpoint }
                return []
            }
        )
    }

    public func webhookEndpoint(id: String, containerID: String) async throws -> WebhookEndpoint? {
        try await endpoints(where: "id = \(.text(id)) AND container_id = \(.text(containerID))").first
    }

    public func webhookEndpoints(containerID: String) async throws -> [WebhookEndpoint] {
        try await endpoints(where: "container_id = \(.text(containerID))")
    }

    public func enabledWebhookEndpoints() async throws -> [WebhookEndpoint] {
        try await endpoints(where: "enabled = \(.bool(true))")
    }

    private func endpoints(where condition: SQLFragment) async throws -> [WebhookEndpoint] {
        try await rows("""
            SELECT id, container_id, environment, url, description, event_types, databases, zone_names, record_types, sealed_secrets, enabled,
                disabled_reason, failing_since, created_at
            FROM webhook_endpoints WHERE \(condition) ORDER BY created_at, id
            """).map { row in
            WebhookEndpoint(
                id: try row.text("id"), containerID: try row.text("container_id"),
                environment: Environment(rawValue: try row.text("environment")) ?? .development, url: try row.text("url"),
                description: try row.text("description"), eventTypes: WebhookTables.list(try row.text("event_types")),
                databases: WebhookTables.list(try row.text("databases")), zoneNames: WebhookTables.list(try row.text("zone_names")),
                recordTypes: WebhookTables.list(try row.text("record_types")), sealedSecrets: WebhookTables.list(try row.text("sealed_secrets")),
                isEnabled: try row.bool("enabled"), disabledReason: try row.optionalText("disabled_reason"),
                failingSince: try row.optionalInteger("failing_since"), createdAt: try row.integer("created_at")
            )
        }
    }

    public func queueWebhookDeliveries(_ deliveries: [PendingWebhookDelivery], now: Int64) async throws {
        guard !deliveries.isEmpty else { return }
        try await transaction(taking: Int64(deliveries.count), { first in
            WebhookTables.inserts(deliveries, first: first, now: now)
        }, then: { _ in [.webhooksQueued] })
    }

    public func dueWebhookDeliveries(now: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try await rows("""
            SELECT \(raw: WebhookTables.deliveryColumns("d")) FROM webhook_deliveries d
            JOIN webhook_endpoints e ON e.id = d.endpoint_id AND e.enabled = \(.bool(true))
            WHERE d.status = 'pending' AND d.next_attempt_at <= \(.integer(now)) AND d.id = (
                SELECT MIN(p.id) FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id AND p.ordering_key = d.ordering_key \
                AND p.status = 'pending')
            ORDER BY d.id LIMIT \(.integer(Int64(limit)))
            """).map(WebhookTables.delivery)
    }

    public func recordWebhookAttempt(_ attempt: WebhookAttempt, deliveryID: Int64, retryAt: Int64) async throws {
        let endpoint: SQLFragment = "id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = \(.integer(deliveryID)))"
        let outcome: SQLFragment = attempt.succeeded
            ? "status = 'delivered', delivered_at = \(.integer(attempt.at))"
            : "next_attempt_at = \(.integer(retryAt))"
        try await transaction([
            """
            UPDATE webhook_deliveries SET \(outcome), attempts = attempts + 1, last_status = \(.integer(Int64(attempt.statusCode))), \
            last_response = \(.text(String(attempt.response.prefix(1000)))), last_latency = \(.integer(attempt.latency))
            WHERE id = \(.integer(deliveryID)) AND status = 'pending'
            """,
            attempt.succeeded
                ? "UPDATE webhook_endpoints SET failing_since = NULL WHERE \(endpoint)"
                : "UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, \(.integer(attempt.at))) WHERE \(endpoint)",
        ])
    }

    public func disableWebhookEndpoint(id: String, containerID: String, reason: String) async throws {
        try await execute(["""
            UPDATE webhook_endpoints SET enabled = \(.bool(false)), disabled_reason = \(.text(reason))
            WHERE id = \(.text(id)) AND container_id = \(.text(containerID))
            """])
    }

    public func webhookDeliveries(endpointID: String, containerID: String, before: Int64?, limit: Int) async throws -> [WebhookDelivery] {
        let page: SQLFragment = before.map { "AND id < \(.integer($0))" } ?? ""
        return try await rows("""
            SELECT \(raw: WebhookTables.deliveryColumns(nil)) FROM webhook_deliveries
            WHERE endpoint_id = \(.text(endpointID)) AND container_id = \(.text(containerID)) \(page)
            ORDER BY id DESC LIMIT \(.integer(Int64(limit)))
            """).map(WebhookTables.delivery)
    }

    public func retryWebhookDelivery(id: Int64, endpointID: String, containerID: String, now: Int64) async throws {
        let updated = try await execute(["""
            UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = \(.integer(now))
            WHERE id = \(.integer(id)) AND endpoint_id = \(.text(endpointID)) AND container_id = \(.text(containerID)) RETURNING id
            """])
        if updated[0].isEmpty { throw StorageError(.notFound, "the endpoint has no delivery \(id)") }
    }

    public func pruneWebhookDeliveries(deliveredBefore time: Int64) async throws -> Int {
        try await execute([
            "DELETE FROM webhook_deliveries WHERE status = 'delivered' AND delivered_at < \(.integer(time)) RETURNING id"
        ])[0].count
    }

    public func replayWebhookDeliveries(endpointID: String, containerID: String, since time: Int64, now: Int64) async throws -> Int {
        try await transaction { transaction in
            let sent = try await transaction.rows("""
                SELECT \(raw: WebhookTables.deliveryColumns(nil)) FROM webhook_deliveries
                WHERE id IN (
                    SELECT MIN(id) FROM webhook_deliveries WHERE endpoint_id = \(.text(endpointID)) AND container_id = \(.text(containerID)) \
                    AND created_at >= \(.integer(time)) GROUP BY event_id)
                ORDER BY id
                """).map(WebhookTables.delivery)
            guard !sent.isEmpty else { return 0 }
            let first = try await transaction.positions(Int64(sent.count))
            let again = sent.map {
                PendingWebhookDelivery(
                    endpointID: $0.endpointID, containerID: $0.containerID, environment: $0.environment, orderingKey: $0.orderingKey,
                    eventID: $0.eventID, eventType: $0.eventType, body: $0.body
                )
            }
            for statement in WebhookTables.inserts(again, first: first, now: now) { try await transaction.rows(statement) }
            transaction.emit(.webhooksQueued)
            return sent.count
        }
    }
}

/// The webhook tables' shared statements.
enum WebhookTables {
    static let noSuchEndpoint = StorageError(.notFound, "the container has no such webhook endpoint")

    static func list(_ values: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(values)) ?? Data("[]".utf8), as: UTF8.self)
    }

    static func list(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    static func deliveryColumns(_ alias: String?) -> String {
        let prefix = alias.map { $0 + "." } ?? ""
        return ["id", "endpoint_id", "container_id", "environment", "ordering_key", "event_id", "event_type", "body", "status", "attempts",
                "next_attempt_at", "created_at", "delivered_at", "last_status", "last_response", "last_latency"]
            .map { prefix + $0 }.joined(separator: ", ")
    }

    static func delivery(_ row: SQLRow) throws -> WebhookDelivery {
        WebhookDelivery(
            id: try row.integer("id"), endpointID: try row.text("endpoint_id"), containerID: try row.text("container_id"),
            environment: Environment(rawValue: try row.text("environment")) ?? .development, orderingKey: try row.text("ordering_key"),
            eventID: try row.text("event_id"), eventType: try row.text("event_type"), body: try row.text("body"),
            status: WebhookDelivery.Status(rawValue: try row.text("status")) ?? .pending, attempts: Int(try row.integer("attempts")),
            nextAttemptAt: try row.integer("next_attempt_at"), createdAt: try row.integer("created_at"),
            deliveredAt: try row.optionalInteger("delivered_at"), lastStatusCode: try row.optionalInteger("last_status").map(Int.init),
            lastResponse: try row.optionalText("last_response"), lastLatency: try row.optionalInteger("last_latency")
        )
    }

    /// Statements inserting `deliveries` with ids from `first`, due at once; up to 200 rows each.
    static func inserts(_ deliveries: [PendingWebhookDelivery], first: Int64, now: Int64) -> [SQLFragment] {
        stride(from: 0, to: deliveries.count, by: 200).map { start in
            let rows = deliveries[start..<min(start + 200, deliveries.count)].enumerated().map { offset, delivery -> [SQLValue] in
                [
                    .integer(first + Int64(start + offset)), .text(delivery.endpointID), .text(delivery.containerID),
                    .text(delivery.environment.rawValue), .text(delivery.orderingKey), .text(delivery.eventID), .text(delivery.eventType),
                    .text(delivery.body), .text("pending"), .integer(0), .integer(now), .integer(now),
                ]
            }
            let columns = ["id", "endpoint_id", "container_id", "environment", "ordering_key", "event_id", "event_type", "body", "status", "attempts",
                           "next_attempt_at", "created_at"]
            return "\(dialect: { $0.insertRows(into: "webhook_deliveries", columns: columns, rows: rows) })"
        }
    }
}

extension WebhookTables {
    /// Queues an account event (`account.created`, `account.deleted`) for the container's endpoints of either
    /// environment that want it, in the transaction of the change.
    static func queueAccountEvent(_ type: String, containerID: String, userRecordName: String, emailAddress: String?, in transaction: any SQLTransaction)
        async throws
    {
        var data: [String: Any] = ["containerID": containerID, "userRecordName": userRecordName]
        if let emailAddress { data["emailAddress"] = emailAddress }
        try await queueEvent(type, containerID: containerID, environment: nil, orderingKey: "accounts", data: data, in: transaction)
    }

    /// Queues a share event (`share.accepted`, `share.left`) about `user` and a zone's share, in the transaction of the change.
    static func queueShareEvent(_ type: String, zone: ZoneRef, shareRecordName: String?, user: String, in transaction: any SQLTransaction) async throws {
        let database = zone.database
        try await queueEvent(
            type, containerID: database.containerID, environment: database.environment,
            orderingKey: "\(database.scope.rawValue)|\(database.ownerRecordName)|\(zone.zoneName)",
            data: WebhookDelivery.shareEventData(zone: zone, shareRecordName: shareRecordName, user: user), in: transaction
        )
    }

    /// Queues an event that comes from no record change for every enabled endpoint of the container (in `environment`,
    /// or in either) that wants it, in the transaction of the change: `{type, timestamp, data}`.
    static func queueEvent(
        _ type: String, containerID: String, environment: Environment?, orderingKey: String, data: [String: Any], in transaction: any SQLTransaction
    ) async throws {
        let inEnvironment: SQLFragment = environment.map { "AND environment = \(.text($0.rawValue))" } ?? ""
        let endpoints = try await transaction.rows("""
            SELECT id, environment, event_types FROM webhook_endpoints
            WHERE container_id = \(.text(containerID)) \(inEnvironment) AND enabled = \(.bool(true)) ORDER BY id
            """).filter { row in
            let types = list(try row.text("event_types"))
            return types.isEmpty || types.contains(type)
        }
        guard !endpoints.isEmpty else { return }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let body = WebhookDelivery.eventBody(type: type, data: data, now: now)
        let eventID = "evt_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(24)
        let deliveries = try endpoints.map { row in
            PendingWebhookDelivery(
                endpointID: try row.text("id"), containerID: containerID,
                environment: Environment(rawValue: try row.text("environment")) ?? .development, orderingKey: orderingKey, eventID: String(eventID),
                eventType: type, body: body
            )
        }
        let first = try await transaction.positions(Int64(deliveries.count))
        for statement in inserts(deliveries, first: first, now: now) { try await transaction.rows(statement) }
        transaction.emit(.webhooksQueued)
    }
}
