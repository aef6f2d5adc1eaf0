import Hummingbird
import StratusModel
import StratusStore

/// The admin API under `/admin/1`, guarded by the admin key (`Authorization: Bearer <key>`).
struct AdminController {
    let server: ServerState

    func register(on router: Router<StratusRequestContext>) {
        let group = router.group("admin/1")
        group.post("containers", use: createContainer)
        group.get("containers", use: listContainers)
    }

    /// - Throws: `AUTHENTICATION_FAILED` (401) for a missing or wrong key.
    private func requireAdmin(_ request: Request) throws {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
            Authenticator.constantTimeEquals(String(header.dropFirst(7)), server.configuration.adminKey)
        else {
            throw APIError(.authenticationFailed, "the admin API needs the header Authorization: Bearer <admin key>")
        }
    }

    @Sendable func createContainer(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try requireAdmin(request)
        let body = try await RequestBody.decode(CreateContainerRequest.self, from: request, limit: 64 * 1024)
        let container = try await AdminOperations.createContainer(id: body.containerID, store: server.store)
        server.authenticator.remember(container)
        return try JSONResponse.make(encoding: CreateContainerResponse(containerID: container.id, apiToken: container.apiToken), status: .created)
    }

    @Sendable func listContainers(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try requireAdmin(request)
        let containers = try await server.store.containers()
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("containers")
        writer.beginArray()
        for container in containers {
            writer.arrayElement()
            writer.beginObject()
            writer.key("apiToken")
            writer.string(container.apiToken)
            writer.key("containerID")
            writer.string(container.id)
            writer.key("created")
            writer.integer(container.createdAt)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return JSONResponse.make(writer)
    }
}
