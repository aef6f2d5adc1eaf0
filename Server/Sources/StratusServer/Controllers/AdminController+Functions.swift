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
        group.get(":container/functions", use: listFunctions)
        group.put(":container/:environment/functions/modules/:module", use: uploadFunctionModule)
        group.delete(":container/:environment/functions/modules/:module", use: deleteFunctionModule)
        group.put(":container/:environment/functions/:function", use: saveFunction)
        group.delete(":container/:environment/functions/:function", use: deleteFunction)
    }

    /// A function's settings as the API takes them.
    struct FunctionBody: Decodable {
        var module: String
        var entry: String?
        var trigger: FunctionTrigger
        var recordTypes: [String]?
        var databases: [String]?
        var eventTypes: [String]?
        var runAsRole: String?
        var grants: [String]?
        var limits: FunctionBinding.Limits?
        var enabled: Bool?
    }

    /// How the API shows a module (without its bytes).
    struct ModuleJSON: Encodable {
        var name: String
        var environment: String
        var size: Int
        var digest: String
        var entries: [String]
        var uploaded: Int64

        init(_ module: StoredFunctionModule) {
            name = module.name
            environment = module.environment.rawValue
            size = module.size
            digest = module.digest
            entries = module.entries
            uploaded = module.uploadedAt
        }
    }

    /// How the API shows a function, with the limits it runs with and, for `afterSave`, the endpoint listing its events.
    struct FunctionJSON: Encodable {
        var name: String
        var environment: String
        var module: String
        var entry: String
        var trigger: FunctionTrigger
        var recordTypes: [String]
        var databases: [String]
        var eventTypes: [String]
        var runAsRole: String?
        var grants: [String]
        var limits: FunctionBinding.Limits
        var effectiveLimits: FunctionLimits
        var enabled: Bool
        var eventsEndpoint: String?
        var created: Int64
        var updated: Int64

        init(_ binding: FunctionBinding) {
            name = binding.name
            environment = binding.environment.rawValue
            module = binding.module
            entry = binding.entry
            trigger = binding.trigger
            recordTypes = binding.recordTypes
            databases = binding.databases
            eventTypes = binding.eventTypes
            runAsRole = binding.runAsRole
            grants = binding.grants
            limits = binding.limits
            effectiveLimits = FunctionCatalog.limits(of: binding)
            enabled = binding.isEnabled
            eventsEndpoint = binding.trigger == .afterSave
                ? FunctionBinding.eventEndpointID(environment: binding.environment, name: binding.name) : nil
            created = binding.createdAt
            updated = binding.updatedAt
        }
    }

    private struct FunctionsJSON: Encodable {
        var modules: [ModuleJSON]
        var functions: [FunctionJSON]
    }

    /// `GET /admin/1/{container}/functions`: `{modules, functions}` of every environment.
    @Sendable func listFunctions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        return try JSONResponse.make(encoding: FunctionsJSON(
            modules: try await server.store.functionModules(containerID: container.id).map(ModuleJSON.init),
            functions: try await server.store.functionBindings(containerID: container.id).map(FunctionJSON.init)
        ))
    }

    /// `PUT /admin/1/{container}/{environment}/functions/modules/{name}` with the module's bytes: checked (size,
    /// valid WebAssembly, imports the server offers, exports the functions bound to it name) and kept.
    @Sendable func uploadFunctionModule(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let name = try Self.functionName(try context.parameters.require("module"), what: "module")
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
            containerID: container.id, environment: environment, name: name, bytes: bytes, digest: FunctionCatalog.digest(bytes),
            size: bytes.count, entries: module.entries, uploadedAt: ServerClock.now()
        )
        try await server.store.saveFunctionModule(stored)
        return try JSONResponse.make(encoding: ModuleJSON(stored))
    }

    @Sendable func deleteFunctionModule(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        try await server.store.deleteFunctionModule(
            containerID: try context.parameters.require("container"),
            environment: try Authenticator.environment(named: try context.parameters.require("environment")),
            name: try context.parameters.require("module")
        )
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// `PUT /admin/1/{container}/{environment}/functions/{name}` with ``FunctionBody``: creates or replaces a function.
    @Sendable func saveFunction(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let name = try Self.functionName(try context.parameters.require("function"), what: "function")
        let body = try await RequestBody.decode(FunctionBody.self, from: request, limit: 64 * 1024)
        guard let module = try await server.store.functionModules(containerID: container.id)
            .first(where: { $0.environment == environment && $0.name == body.module })
        else {
            throw APIError(.notFound, "\(container.id) has no module \(body.module) in \(environment.rawValue); upload it first")
        }
        let entry = body.entry ?? Self.defaultEntry(body.trigger)
        guard module.entries.contains(entry) else {
            throw APIError.badRequest(
                "the module \(module.name) exports no function \"\(entry)\" taking nothing (it has: \(module.entries.joined(separator: ", ")))"
            )
        }
        let recordTypes = body.recordTypes ?? []
        if body.trigger == .beforeSave && recordTypes.isEmpty {
            throw APIError.badRequest("a beforeSave function names the recordTypes it checks")
        }
        for database in body.databases ?? [] where DatabaseScope(rawValue: database) == nil {
            throw APIError.badRequest("'\(database)' is not a database: public, private or shared")
        }
        let recordEvents = ["record.created", "record.updated", "record.deleted"]
        for event in body.eventTypes ?? [] where !recordEvents.contains(event) {
            throw APIError.badRequest("'\(event)' is not an event an afterSave function receives: \(recordEvents.joined(separator: ", "))")
        }
        for grant in body.grants ?? [] where FunctionGrant(rawValue: grant) == nil {
            throw APIError.badRequest("'\(grant)' is not a grant: \(FunctionGrant.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        try Self.checkLimits(body.limits)
        let existing = try await server.store.functionBindings(containerID: container.id).first { $0.environment == environment && $0.name == name }
        let now = ServerClock.now()
        let binding = FunctionBinding(
            containerID: container.id, environment: environment, name: name, module: body.module, entry: entry, trigger: body.trigger,
            recordTypes: recordTypes, databases: body.databases ?? [], eventTypes: body.eventTypes ?? [], runAsRole: body.runAsRole,
            grants: body.grants ?? [], limits: body.limits ?? .init(), isEnabled: body.enabled ?? true, createdAt: existing?.createdAt ?? now,
            updatedAt: now
        )
        try await server.store.saveFunctionBinding(binding)
        return try JSONResponse.make(encoding: FunctionJSON(binding), status: existing == nil ? .created : .ok)
    }

    @Sendable func deleteFunction(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        try await server.store.deleteFunctionBinding(
            containerID: try context.parameters.require("container"),
            environment: try Authenticator.environment(named: try context.parameters.require("environment")),
            name: try context.parameters.require("function")
        )
        return JSONResponse.make(JSONWriter.object { _ in })
    }

    /// The entry a trigger calls unless the function names one.
    static func defaultEntry(_ trigger: FunctionTrigger) -> String {
        switch trigger {
        case .beforeSave: "before_save"
        case .afterSave: "after_save"
        case .callable: "call"
        case .schedule: "scheduled"
        }
    }

    /// Names of modules, functions and jobs: letters, digits, `_`, `-` and `.`, up to 64.
    static func functionName(_ name: String, what: String) throws -> String {
        let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }
        guard allowed, (1...64).contains(name.count), name != "modules" else {
            throw APIError.badRequest("a \(what) name has 1 to 64 letters, digits, '_', '-' or '.' (and is not 'modules'), not '\(name)'")
        }
        return name
    }

    private static func checkLimits(_ limits: FunctionBinding.Limits?) throws {
        guard let limits else { return }
        let maximum = FunctionLimits.maximum
        if let value = limits.instructions, value == 0 || value > maximum.instructions {
            throw APIError.badRequest("limits.instructions is from 1 to \(maximum.instructions)")
        }
        if let value = limits.memoryBytes, value < 65_536 || value > maximum.memoryBytes {
            throw APIError.badRequest("limits.memoryBytes is from 65536 (one page) to \(maximum.memoryBytes)")
        }
        if let value = limits.seconds, !(value > 0 && value <= maximum.seconds) {
            throw APIError.badRequest("limits.seconds is above 0 and at most \(maximum.seconds)")
        }
        if let value = limits.hostRequests, value < 0 || value > maximum.hostRequests {
            throw APIError.badRequest("limits.hostRequests is from 0 to \(maximum.hostRequests)")
        }
    }
}
