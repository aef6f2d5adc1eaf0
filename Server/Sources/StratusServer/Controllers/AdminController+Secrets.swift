import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Containers' secrets in the admin API: set and removed, listed by name, never returned.
extension AdminController {
    func registerSecretRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get(":container/secrets", .viewer, use: listSecrets)
        group.put(":container/secrets/:name", .owner, use: setSecret)
        group.delete(":container/secrets/:name", .owner, use: removeSecret)
        group.post("secrets/reseal", .administrator, use: resealSecrets)
        group.get(":container/accounts/revocations", .viewer, use: pendingRevocations)
    }

    /// `GET /admin/1/{container}/accounts/revocations`: deleted accounts' provider tokens still to revoke,
    /// `{revocations: [{provider, subject, attempts, nextAttempt, lastError?, created}]}` (the tokens stay sealed).
    @Sendable func pendingRevocations(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let pending = try await server.store.pendingRevocations(containerID: try context.parameters.require("container"))
        return JSONResponse.make(JSONWriter.object { writer in
            writer.array("revocations", pending) { writer, revocation in
                writer.beginObject()
                writer.key("provider")
                writer.string(revocation.provider)
                writer.key("subject")
                writer.string(revocation.subject)
                writer.key("attempts")
                writer.integer(Int64(revocation.attempts))
                writer.key("nextAttempt")
                writer.integer(revocation.nextAttemptAt)
                if let error = revocation.lastError {
                    writer.key("lastError")
                    writer.string(error)
                }
                writer.key("created")
                writer.integer(revocation.createdAt)
                writer.endObject()
            }
        })
    }

    /// `GET /admin/1/{container}/secrets`: `{secrets: [{name, updated, keyID}], secretsKey: {configured, keyID?}}`,
    /// names and times only.
    @Sendable func listSecrets(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let secrets = try await server.store.containerSecrets(containerID: try context.parameters.require("container"))
        let keys = server.configuration.secretsKeys
        return try JSONResponse.make(encoding: SecretsResponse(
            secrets: secrets.map { secret in
                SecretsResponse.Entry(
                    name: secret.name, updated: secret.updatedAt,
                    keyID: secret.sealedValue.split(separator: ".").dropFirst().first.map(String.init) ?? ""
                )
            },
            secretsKey: SecretsResponse.KeyState(configured: !keys.isEmpty, keyID: keys.currentKeyID)
        ))
    }

    /// `PUT /admin/1/{container}/secrets/{name}` with `{"value": "..."}`: stores it sealed; answers `{name, updated}`.
    @Sendable func setSecret(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let body = try await RequestBody.decode(SecretValueRequest.self, from: request, limit: RequestLimits.jsonBody)
        let containerID = try context.parameters.require("container")
        let name = try context.parameters.require("name")
        try await server.secrets.set(body.value, named: name, containerID: containerID)
        return try JSONResponse.make(encoding: NamedResponse(name: name))
    }

    /// `DELETE /admin/1/{container}/secrets/{name}`.
    @Sendable func removeSecret(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        try await server.store.removeContainerSecret(containerID: try context.parameters.require("container"), name: try context.parameters.require("name"))
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `POST /admin/1/secrets/reseal`: seals every stored secret and token with this node's first secrets key;
    /// answers `{resealed, alreadyCurrent}`.
    @Sendable func resealSecrets(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let (resealed, current) = try await server.secrets.resealAll()
        return try JSONResponse.make(encoding: ResealResponse(resealed: resealed, alreadyCurrent: current))
    }
}
