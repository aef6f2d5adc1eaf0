import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The admin API under `/admin/1`, guarded by the admin key (`Authorization: Bearer <key>`).
struct AdminController {
    let server: ServerState

    func register(on router: Router<StratusRequestContext>) {
        let group = router.group("admin/1")
        group.post("containers", .administrator, use: createContainer)
        group.get("containers", .anyOperator, use: listContainers)
        group.get(":container/:environment/schema", .viewer, use: exportSchema)
        group.put(":container/:environment/schema", .developer, use: importSchema)
        group.get(":container/deploy", .viewer, use: deploymentPreview)
        group.post(":container/deploy", .owner, use: deploy)
        group.post(":container/keys", .owner, use: createKey)
        group.get(":container/keys", .viewer, use: listKeys)
        group.delete(":container/keys/:keyID", .owner, use: revokeKey)
        group.get(":container/:environment/users/:user/roles", .viewer, use: userRoles)
        group.put(":container/:environment/users/:user/roles", .developer, use: setUserRoles)
        registerSessionRoutes(on: group)
        registerOperatorRoutes(on: group)
        registerImportRoutes(on: group)
        registerAccountTransferRoutes(on: group)
        registerAccountRoutes(on: group)
        registerSecretRoutes(on: group)
        registerWebhookRoutes(on: group)
        registerFunctionRoutes(on: group)
        registerJobRoutes(on: group)
        registerQuotaRoutes(on: group)
        registerTelemetryRoutes(on: group)
        registerUserOverviewRoutes(on: group)
        registerPeopleRoutes(on: group)
        registerAdminKeyRoutes(on: group)
        registerOverviewRoutes(on: group)
        registerBackupRoutes(on: group)
    }

    /// `POST /admin/1/{container}/keys` with `{"publicKey": "<PEM>", "role"?: "Admin"}` answers `{"keyID"}`.
    @Sendable func createKey(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let body = try await RequestBody.decode(ServerKeyRequest.self, from: request, limit: RequestLimits.jsonBody)
        let key = try await AdminOperations.createServerKey(
            publicKeyPEM: body.publicKey, role: body.role, containerID: try context.parameters.require("container"), store: server.store
        )
        return try JSONResponse.make(encoding: ServerKeyEntry(keyID: key.id, role: key.role, created: key.createdAt), status: .created)
    }

    /// `GET /admin/1/{container}/keys`: the keys not revoked.
    @Sendable func listKeys(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let keys = try await server.store.serverKeys(containerID: try context.parameters.require("container"))
        return try JSONResponse.make(encoding: ServerKeysResponse(keys: keys.map { ServerKeyEntry(keyID: $0.id, role: $0.role, created: $0.createdAt) }))
    }

    /// `DELETE /admin/1/{container}/keys/{keyID}` revokes a key at once.
    @Sendable func revokeKey(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let keyID = try context.parameters.require("keyID")
        try await AdminOperations.revokeServerKey(keyID, containerID: try context.parameters.require("container"), store: server.store)
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `GET /admin/1/{container}/{environment}/users/{userRecordName}/roles`
    @Sendable func userRoles(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let user = try context.parameters.require("user")
        let roles = try await AdminOperations.roles(
            of: user, containerID: try context.parameters.require("container"), environment: try Self.environment(context), store: server.store
        )
        return try JSONResponse.make(encoding: RolesResponse(roles: roles, userRecordName: user))
    }

    /// `PUT /admin/1/{container}/{environment}/users/{userRecordName}/roles` with `{"roles": ["Admin"]}`.
    @Sendable func setUserRoles(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let body = try await RequestBody.decode(RolesRequest.self, from: request, limit: RequestLimits.jsonBody)
        let user = try context.parameters.require("user")
        let containerID = try context.parameters.require("container")
        let environment = try Self.environment(context)
        let roles = try await AdminOperations.setRoles(body.roles, of: user, containerID: containerID, environment: environment, store: server.store)
        return try JSONResponse.make(encoding: RolesResponse(roles: roles, userRecordName: user))
    }

    static func environment(_ context: StratusRequestContext) throws -> StratusModel.Environment {
        try Authenticator.environment(named: try context.parameters.require("environment"))
    }

    /// `GET /admin/1/{container}/{environment}/schema`: the schema as text, or as JSON with `?format=json`.
    @Sendable func exportSchema(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        if request.uri.queryParameters["format"] == "json" {
            let schema = try await AdminOperations.schema(
                containerID: try context.parameters.require("container"), environment: try Self.environment(context), store: server.store
            )
            return try JSONResponse.make(encoding: schema)
        }
        let text = try await AdminOperations.schemaText(
            containerID: try context.parameters.require("container"), environment: try Self.environment(context), store: server.store
        )
        return Response(status: .ok, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// `PUT /admin/1/{container}/development/schema`: replaces the development schema with the text sent, or
    /// with the schema as JSON (the shape `?format=json` answers). Removing a type or field that records hold
    /// is refused unless `?force=true`.
    @Sendable func importSchema(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        var body = try await RequestBody.read(request, limit: RequestLimits.schemaBody)
        var text = body.readString(length: body.readableBytes) ?? ""
        // JSON is a body starting with `{`: schema text never does, whatever Content-Type a client sends it with.
        if text.first(where: { !$0.isWhitespace }) == "{" {
            let schema = try RequestBody.decode(Schema.self, from: Array(text.utf8))
            text = SchemaLanguage.print(schema)
        }
        let force = request.uri.queryParameters["force"].map { $0 == "true" || $0 == "1" } ?? false
        let changes = try await AdminOperations.importSchema(
            text, containerID: try context.parameters.require("container"), environment: try Self.environment(context), force: force,
            store: server.store
        )
        return try JSONResponse.make(encoding: SchemaChangesResponse(changes: changes.map(SchemaChangeEntry.init)))
    }

    /// `GET /admin/1/{container}/deploy`: what a deploy would change, without deploying; `deployable` is false
    /// when a change is not additive (each change says whether it is).
    @Sendable func deploymentPreview(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let changes = try await AdminOperations.schemaDiff(containerID: try context.parameters.require("container"), store: server.store)
        return try JSONResponse.make(encoding: SchemaChangesResponse(changes: changes.map(SchemaChangeEntry.init), deployable: changes.allSatisfy(\.isAdditive)))
    }

    /// `POST /admin/1/{container}/deploy`: copies the development schema to production; `{"dryRun": true}`
    /// (or `?dryRun=true`) only reports the changes.
    @Sendable func deploy(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let body = try await RequestBody.decode(DeployRequest.self, from: request, limit: RequestLimits.jsonBody)
        let dryRun = body.dryRun ?? (request.uri.queryParameters["dryRun"].map { $0 == "true" || $0 == "1" } ?? false)
        let deployment = try await AdminOperations.deploy(containerID: try context.parameters.require("container"), dryRun: dryRun, store: server.store)
        return try JSONResponse.make(encoding: SchemaChangesResponse(changes: deployment.changes.map(SchemaChangeEntry.init), deployed: deployment.deployed))
    }

    /// The actor of an admin request (the admin key, `Authorization: Bearer <key>`, or a console session with its
    /// CSRF token), once they are found allowed what its route declared it needs (``AdminAccess``).
    /// - Throws: `AUTHENTICATION_FAILED` without the admin key or a console session; `ACCESS_DENIED` for an operator
    ///   whose roles do not allow it.
    @discardableResult
    func requireAdmin(_ request: Request, _ context: StratusRequestContext) async throws -> AdminActor {
        // Admin calls read schemas and roles: they see every change committed before them, on any process.
        try await server.store.catchUpEvents()
        guard let actor = try await server.consoleSessions.actor(of: request) else {
            if Authenticator.bearerToken(of: request) != nil {
                throw try await server.consoleSessions.adminKeys.current() == .turnedOff ? AdminKeys.turnedOffError : APIError(.authenticationFailed, "that is not this server's admin key")
            }
            throw APIError(.authenticationFailed, "the admin API needs the header Authorization: Bearer <admin key>, or a console session")
        }
        guard let access = context.adminAccess else {
            throw APIError.internalError(AdminRouteError(description: "\(request.method) \(request.uri.path) declares no AdminAccess"))
        }
        try access.check(actor, containerID: context.parameters.get("container"), environment: context.parameters.get("environment"))
        return actor
    }

    @Sendable func createContainer(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let body = try await RequestBody.decode(CreateContainerRequest.self, from: request, limit: RequestLimits.jsonBody)
        let container = try await AdminOperations.createContainer(id: body.containerID, store: server.store)
        return try JSONResponse.make(encoding: CreateContainerResponse(containerID: container.id, apiToken: container.apiToken), status: .created)
    }

    @Sendable func listContainers(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let actor = try await requireAdmin(request, context)
        // An operator sees the containers they hold a role in.
        let containers = try await server.store.containers().filter { actor.role(in: $0.id) != nil }
        return try JSONResponse.make(encoding: ContainersResponse(
            containers: containers.map { ContainersResponse.Entry(containerID: $0.id, apiToken: $0.apiToken, created: $0.createdAt) }
        ))
    }
}
