import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Webhook endpoints in the admin API: made (their secret shown once), listed, changed, deleted; their secrets
/// rotated; their deliveries listed, retried and replayed.
extension AdminController {
    func registerWebhookRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.post(":container/:environment/webhooks", .developer, use: createWebhook)
        group.get(":container/webhooks", .viewer, use: listWebhooks)
        group.put(":container/webhooks/:webhook", .owner, use: updateWebhook)
        group.delete(":container/webhooks/:webhook", .owner, use: deleteWebhook)
        group.post(":container/webhooks/:webhook/secret/rotate", .owner, use: rotateWebhookSecret)
        group.post(":container/webhooks/:webhook/secret/drop-previous", .owner, use: dropPreviousWebhookSecret)
        group.get(":container/webhooks/:webhook/deliveries", .viewer, use: webhookDeliveries)
        group.post(":container/webhooks/:webhook/deliveries/:delivery/retry", .owner, use: retryWebhookDelivery)
        group.post(":container/webhooks/:webhook/replay", .owner, use: replayWebhook)
    }

    /// An endpoint's settings as the API takes them; every field but `url` optional.
    struct WebhookBody: Decodable {
        var url: String?
        var description: String?
        var eventTypes: [String]?
        var databases: [String]?
        var zoneNames: [String]?
        var recordTypes: [String]?
        var enabled: Bool?
    }

    /// `POST /admin/1/{container}/{environment}/webhooks` with ``WebhookBody``: answers `201` with the endpoint and its
    /// `secret` (`whsec_…`), shown this once.
    @Sendable func createWebhook(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let body = try await RequestBody.decode(WebhookBody.self, from: request, limit: RequestLimits.jsonBody)
        let id = "wh_" + Tokens.randomHex(bytes: 12)
        let secret = WebhookSignature.newSecret()
        var endpoint = WebhookEndpoint(
            id: id, containerID: container.id, environment: environment, url: "",
            sealedSecrets: [try server.configuration.secretsKeys.seal(secret, context: SealingContext.webhookSecret(container.id, id))],
            createdAt: ServerClock.now()
        )
        try await apply(body, to: &endpoint, creating: true)
        try await server.store.createWebhookEndpoint(endpoint)
        return JSONResponse.make(Self.webhookJSON(endpoint, secret: secret), status: .created)
    }

    /// `GET /admin/1/{container}/webhooks`: `{webhooks: [...]}`, without secrets.
    @Sendable func listWebhooks(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        // An afterSave function's endpoint is listed with its function.
        let endpoints = try await server.store.webhookEndpoints(containerID: try context.parameters.require("container"))
            .filter { FunctionBinding.functionName(inEndpointURL: $0.url) == nil }
        var writer = JSONWriter(capacity: 512 * max(1, endpoints.count))
        writer.beginObject()
        writer.key("webhooks")
        writer.beginArray()
        for endpoint in endpoints { writer.raw(Self.webhookJSON(endpoint, secret: nil).text) }
        writer.endArray()
        writer.endObject()
        return JSONResponse.make(writer)
    }

    /// `PUT /admin/1/{container}/webhooks/{id}` with ``WebhookBody``: changes what is given; `enabled: true` turns a
    /// disabled endpoint on again.
    @Sendable func updateWebhook(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        var endpoint = try await webhook(context)
        let body = try await RequestBody.decode(WebhookBody.self, from: request, limit: RequestLimits.jsonBody)
        try await apply(body, to: &endpoint, creating: false)
        try await server.store.updateWebhookEndpoint(endpoint)
        return JSONResponse.make(Self.webhookJSON(endpoint, secret: nil))
    }

    @Sendable func deleteWebhook(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        _ = try await webhook(context)
        try await server.store.deleteWebhookEndpoint(id: try context.parameters.require("webhook"), containerID: try context.parameters.require("container"))
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `POST …/webhooks/{id}/secret/rotate`: a new secret, shown once, signs beside the previous one until
    /// `…/secret/drop-previous`.
    @Sendable func rotateWebhookSecret(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        var endpoint = try await webhook(context)
        let secret = WebhookSignature.newSecret()
        let sealed = try server.configuration.secretsKeys.seal(secret, context: SealingContext.webhookSecret(endpoint.containerID, endpoint.id))
        endpoint.sealedSecrets = [sealed] + endpoint.sealedSecrets.prefix(1)
        try await server.store.updateWebhookEndpoint(endpoint)
        return JSONResponse.make(Self.webhookJSON(endpoint, secret: secret))
    }

    @Sendable func dropPreviousWebhookSecret(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        var endpoint = try await webhook(context)
        endpoint.sealedSecrets = Array(endpoint.sealedSecrets.prefix(1))
        try await server.store.updateWebhookEndpoint(endpoint)
        return JSONResponse.make(Self.webhookJSON(endpoint, secret: nil))
    }

    /// `GET …/webhooks/{id}/deliveries?before=&limit=`: newest first, with each one's status, attempts, last answer
    /// (status, the start of the reply) and latency.
    @Sendable func webhookDeliveries(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let endpoint = try await webhook(context, managed: true)
        let query = request.uri.queryParameters
        let limit = min(max(query["limit"].flatMap { Int(String($0)) } ?? 50, 1), 200)
        let deliveries = try await server.store.webhookDeliveries(
            endpointID: endpoint.id, containerID: endpoint.containerID, before: query["before"].flatMap { Int64(String($0)) }, limit: limit
        )
        return JSONResponse.make(JSONWriter.object { writer in
            writer.array("deliveries", deliveries) { writer, delivery in
                writer.beginObject()
                writer.key("id")
                writer.integer(delivery.id)
                writer.key("eventID")
                writer.string(delivery.eventID)
                writer.key("eventType")
                writer.string(delivery.eventType)
                writer.key("status")
                writer.string(delivery.status.rawValue)
                writer.key("attempts")
                writer.integer(Int64(delivery.attempts))
                writer.key("created")
                writer.integer(delivery.createdAt)
                writer.key("nextAttempt")
                writer.integer(delivery.nextAttemptAt)
                if let delivered = delivery.deliveredAt {
                    writer.key("delivered")
                    writer.integer(delivered)
                }
                if let status = delivery.lastStatusCode {
                    writer.key("lastStatus")
                    writer.integer(Int64(status))
                }
                if let response = delivery.lastResponse {
                    writer.key("lastResponse")
                    writer.string(String(response.prefix(300)))
                }
                if let latency = delivery.lastLatency {
                    writer.key("latency")
                    writer.integer(latency)
                }
                writer.endObject()
            }
        })
    }

    @Sendable func retryWebhookDelivery(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let endpoint = try await webhook(context, managed: true)
        guard let id = Int64(try context.parameters.require("delivery")) else { throw APIError.badRequest("a delivery's id is a number") }
        try await server.store.retryWebhookDelivery(id: id, endpointID: endpoint.id, containerID: endpoint.containerID, now: ServerClock.now())
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `POST …/webhooks/{id}/replay` with `{since}` (milliseconds since 1970): queues again every event the endpoint was
    /// sent since then; answers `{replayed}`.
    @Sendable func replayWebhook(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let endpoint = try await webhook(context, managed: true)
        struct Body: Decodable { var since: Int64 }
        let body = try await RequestBody.decode(Body.self, from: request, limit: RequestLimits.tokenBody)
        let count = try await server.store.replayWebhookDeliveries(
            endpointID: endpoint.id, containerID: endpoint.containerID, since: body.since, now: ServerClock.now()
        )
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("replayed")
            writer.integer(Int64(count))
        })
    }

    /// The endpoint a route names; one of an `afterSave` function only when `managed` (its deliveries), since the
    /// function's settings decide the rest.
    private func webhook(_ context: StratusRequestContext, managed: Bool = false) async throws -> WebhookEndpoint {
        let id = try context.parameters.require("webhook")
        guard let endpoint = try await server.store.webhookEndpoint(id: id, containerID: try context.parameters.require("container")) else {
            throw APIError(.notFound, "the container has no webhook \(id)")
        }
        if !managed, let function = FunctionBinding.functionName(inEndpointURL: endpoint.url) {
            throw APIError(.badRequest, "\(id) carries the events of the function \(function): change or delete the function instead")
        }
        return endpoint
    }

    /// Checks and applies what a request changes.
    private func apply(_ body: WebhookBody, to endpoint: inout WebhookEndpoint, creating: Bool) async throws {
        if let url = body.url {
            if let refusal = await WebhookTargets.checked(url, allowPrivate: server.configuration.webhooksAllowPrivate) {
                throw APIError.badRequest("url: \(refusal)")
            }
            endpoint.url = url
        } else if creating {
            throw APIError.badRequest("a webhook needs the url events are sent to")
        }
        if let description = body.description { endpoint.description = String(description.prefix(500)) }
        if let types = body.eventTypes {
            for type in types where !WebhookEvents.all.contains(type) {
                throw APIError.badRequest("'\(type)' is not an event type: \(WebhookEvents.all.joined(separator: ", "))")
            }
            endpoint.eventTypes = types
        }
        if let databases = body.databases {
            for database in databases where !["public", "private", "shared"].contains(database) {
                throw APIError.badRequest("'\(database)' is not a database: public, private or shared")
            }
            endpoint.databases = databases
        }
        if let zones = body.zoneNames { endpoint.zoneNames = zones }
        if let types = body.recordTypes { endpoint.recordTypes = types }
        if let enabled = body.enabled {
            endpoint.isEnabled = enabled
            if enabled {
                endpoint.disabledReason = nil
                endpoint.failingSince = nil
            }
        }
    }

    /// An endpoint as the API answers it; with its new secret when one was just made.
    static func webhookJSON(_ endpoint: WebhookEndpoint, secret: String?) -> JSONWriter {
        JSONWriter.object { writer in
            writer.key("id")
            writer.string(endpoint.id)
            writer.key("environment")
            writer.string(endpoint.environment.rawValue)
            writer.key("url")
            writer.string(endpoint.url)
            writer.key("description")
            writer.string(endpoint.description)
            for (key, values) in [("eventTypes", endpoint.eventTypes), ("databases", endpoint.databases), ("zoneNames", endpoint.zoneNames),
                                  ("recordTypes", endpoint.recordTypes)] {
                writer.array(key, values) { writer, value in writer.string(value) }
            }
            writer.key("enabled")
            writer.bool(endpoint.isEnabled)
            if let reason = endpoint.disabledReason {
                writer.key("disabledReason")
                writer.string(reason)
            }
            if let since = endpoint.failingSince {
                writer.key("failingSince")
                writer.integer(since)
            }
            writer.key("secrets")
            writer.integer(Int64(endpoint.sealedSecrets.count))
            if let secret {
                writer.key("secret")
                writer.string(secret)
            }
            writer.key("created")
            writer.integer(endpoint.createdAt)
        }
    }
}
