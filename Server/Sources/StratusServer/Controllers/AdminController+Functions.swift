import Foundation
import Hummingbird
import StratusFunctions
import StratusModel
import StratusServices
import StratusStore

/// Functions in the admin API: WebAssembly modules uploaded (checked first) and deleted; functions bound to their
/// triggers, listed and deleted. Every node runs what one accepts at once (docs/hooks.md).
extension AdminController {
    func registerFunctionRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get(":container/functions", .viewer, use: listFunctions)
        group.put(":container/:environment/functions/modules/:module", .developer, use: uploadFunctionModule)
        group.delete(":container/:environment/functions/modules/:module", .owner, use: deleteFunctionModule)
        group.put(":container/:environment/functions/:function", .developer, use: saveFunction)
        group.delete(":container/:environment/functions/:function", .owner, use: deleteFunction)
    }

    /// `GET /admin/1/{container}/functions`: `{modules, functions}` of every environment.
    @Sendable func listFunctions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        return try JSONResponse.make(encoding: FunctionsResponse(
            modules: try await server.store.functionModules(containerID: container.id).map(FunctionModuleInfo.init),
            functions: try await server.store.functionBindings(containerID: container.id).map(FunctionInfo.init)
        ))
    }

    /// `PUT /admin/1/{container}/{environment}/functions/modules/{name}` with the module's bytes: checked (size,
    /// valid WebAssembly, imports the server offers, exports the functions bound to it name) and kept.
    @Sendable func uploadFunctionModule(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let name = try FunctionRules.name(try context.parameters.require("module"), of: "module")
        let bytes = Array(try await RequestBody.read(request, limit: FunctionModule.maximumBytes + 1).readableBytesView)
        let module: FunctionModule
        do {
            module = try FunctionModule(bytes: bytes)
        } catch {
            throw APIError.badRequest(error.message)
        }
        let users = try await server.store.functionBindings(containerID: container.id)
            .filter { $0.environment == environment && $0.module == name && !module.entries.contains($0.entry) }
        if !users.isEmpty {
            let names = users.map { "\($0.name) (\($0.entry))" }.joined(separator: ", ")
            throw APIError(.conflict, "the module no longer exports what these functions call: \(names)")
        }
        let stored = StoredFunctionModule(
            containerID: container.id, environment: environment, name: name, bytes: bytes, digest: Tokens.sha256Hex(bytes: bytes),
            size: bytes.count, entries: module.entries, uploadedAt: ServerClock.now()
        )
        try await server.store.saveFunctionModule(stored)
        return try JSONResponse.make(encoding: FunctionModuleInfo(stored))
    }

    @Sendable func deleteFunctionModule(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        try await server.store.deleteFunctionModule(
            containerID: try context.parameters.require("container"),
            environment: try Authenticator.environment(named: try context.parameters.require("environment")),
            name: try context.parameters.require("module")
        )
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `PUT /admin/1/{container}/{environment}/functions/{name}` with ``FunctionSettings``: creates or replaces a function.
    @Sendable func saveFunction(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let name = try FunctionRules.name(try context.parameters.require("function"), of: "function")
        let settings = try await RequestBody.decode(FunctionSettings.self, from: request, limit: RequestLimits.jsonBody)
        let existing = try await server.store.functionBindings(containerID: container.id).first { $0.environment == environment && $0.name == name }
        let binding = try FunctionRules.binding(
            from: settings, name: name, containerID: container.id, environment: environment,
            modules: try await server.store.functionModules(containerID: container.id), replacing: existing, now: ServerClock.now()
        )
        try await server.store.saveFunctionBinding(binding)
        return try JSONResponse.make(encoding: FunctionInfo(binding), status: existing == nil ? .created : .ok)
    }

    @Sendable func deleteFunction(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        try await server.store.deleteFunctionBinding(
            containerID: try context.parameters.require("container"),
            environment: try Authenticator.environment(named: try context.parameters.require("environment")),
            name: try context.parameters.require("function")
        )
        return JSONResponse.make(JSONWriter.object { _ in })
    }
}
