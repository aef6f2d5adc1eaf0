import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Quotas and storage use in the admin API: the defaults, each container's own values, and what each
/// container's databases use against them.
extension AdminController {
    func registerQuotaRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get("quotas", .anyOperator, use: listQuotas)
        group.put("quotas", .administrator, use: setDefaultQuotas)
        group.put(":container/quotas", .owner, use: setContainerQuotas)
        group.get(":container/usage", .viewer, use: containerUsage)
        group.post("usage/measure", .administrator, use: measureUsage)
    }

    /// `GET /admin/1/quotas`: `{"defaults": {...}, "containers": {"<id>": {...}}}`, each with only what is set.
    @Sendable func listQuotas(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        var stored = try await server.store.quotas()
        let defaults = stored.removeValue(forKey: Quotas.defaultsKey) ?? Quotas()
        return try JSONResponse.make(encoding: QuotasResponse(defaults: defaults, containers: stored))
    }

    /// `PUT /admin/1/quotas` with the defaults (fields left out, or `null`, are not set: no limit).
    @Sendable func setDefaultQuotas(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let quotas = try await Self.quotas(from: request)
        try await server.store.setQuotas(quotas, containerID: nil)
        server.quotas.forget()
        return try JSONResponse.make(encoding: quotas)
    }

    /// `PUT /admin/1/{container}/quotas` with the container's own values (left out or `null`: the defaults'; `0`:
    /// no limit). Answers the values that hold for it now.
    @Sendable func setContainerQuotas(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        _ = try await server.authenticator.container(containerID)
        let quotas = try await Self.quotas(from: request)
        try await server.store.setQuotas(quotas, containerID: containerID)
        server.quotas.forget()
        let defaults = try await server.store.quotas()[Quotas.defaultsKey] ?? Quotas()
        return try JSONResponse.make(encoding: quotas.filled(from: defaults))
    }

    /// `GET /admin/1/{container}/usage?limit=20`: the quotas that hold, the container's own values, and its
    /// databases as last measured: the public ones and the largest users', each with its quota.
    @Sendable func containerUsage(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        _ = try await server.authenticator.container(containerID)
        let limit = try Self.integer(request.uri.queryParameters["limit"].map(String.init), named: "limit", default: 20, range: 1...1000)
        let stored = try await server.store.quotas()
        let own = stored[containerID] ?? Quotas()
        let quotas = own.filled(from: stored[Quotas.defaultsKey] ?? Quotas())
        let usage = try await server.store.storageUsage(containerID: containerID, limit: limit)
        return try JSONResponse.make(encoding: StorageUsageResponse(quotas: quotas, own: own, databases: usage.map { usage in
            let quota = usage.database.scope == .public ? quotas.publicStorageBytes : quotas.userStorageBytes
            return DatabaseUsage(usage, quota: Quotas.limit(quota))
        }))
    }

    /// `POST /admin/1/usage/measure`: measures every database now (it is also done every `--usage-interval`);
    /// answers `{"databases": N}`, how many hold data.
    @Sendable func measureUsage(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let count = try await server.store.measureStorage(now: ServerClock.now())
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("databases")
            writer.integer(Int64(count))
        })
    }

}

extension DatabaseUsage {
    /// A measured database, as the admin API answers it.
    init(_ usage: StorageUsage, quota: Int64?) {
        self.init(
            environment: usage.database.environment.rawValue, database: usage.database.scope.rawValue,
            owner: usage.database.scope == .public ? nil : usage.database.ownerRecordName, records: usage.records,
            recordBytes: usage.recordBytes, assetBytes: usage.assetBytes, totalBytes: usage.totalBytes, quotaBytes: quota,
            measured: usage.measuredAt
        )
    }
}

extension AdminController {
    /// A quota body: every value a whole number from 0, or `null`; sizes also as people write them (`"200KB"`,
    /// `"5MB"`), as the command line takes them.
    private static func quotas(from request: Request) async throws -> Quotas {
        let body = try await RequestBody.decode(QuotasInput.self, from: request, limit: RequestLimits.formBody)
        let quotas = Quotas(
            publicStorageBytes: try body.publicStorageBytes?.bytes(named: "publicStorageBytes"),
            userStorageBytes: try body.userStorageBytes?.bytes(named: "userStorageBytes"),
            userRequestsPerMinute: body.userRequestsPerMinute, keyRequestsPerMinute: body.keyRequestsPerMinute,
            addressRequestsPerMinute: body.addressRequestsPerMinute
        )
        let values: [(String, Int64?)] = [
            ("publicStorageBytes", quotas.publicStorageBytes), ("userStorageBytes", quotas.userStorageBytes),
            ("userRequestsPerMinute", quotas.userRequestsPerMinute), ("keyRequestsPerMinute", quotas.keyRequestsPerMinute),
            ("addressRequestsPerMinute", quotas.addressRequestsPerMinute),
        ]
        for (name, value) in values {
            if let value, value < 0 { throw APIError.badRequest("\(name) must be 0 (no limit) or more, not \(value)") }
        }
        return quotas
    }

    /// The quota body as sent: sizes as a number of bytes or as text.
    private struct QuotasInput: Decodable {
        var publicStorageBytes: Size?
        var userStorageBytes: Size?
        var userRequestsPerMinute: Int64?
        var keyRequestsPerMinute: Int64?
        var addressRequestsPerMinute: Int64?

        enum Size: Decodable {
            case bytes(Int64)
            case text(String)

            init(from decoder: any Decoder) throws {
                let value = try decoder.singleValueContainer()
                if let bytes = try? value.decode(Int64.self) {
                    self = .bytes(bytes)
                } else {
                    self = .text(try value.decode(String.self))
                }
            }

            func bytes(named name: String) throws -> Int64 {
                switch self {
                case .bytes(let bytes): return bytes
                case .text(let text):
                    guard let bytes = ByteSize.parse(text) else {
                        throw APIError.badRequest("\(name) must be a number of bytes or a size such as 200KB, 5MB or 1GB, not '\(text)'")
                    }
                    return bytes
                }
            }
        }
    }
}
