import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// `zones/list`, `zones/lookup`, `zones/modify` and the older `zones/changes` (`docs/protocol.md#zones-and-sync`).
struct ZonesController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.get("zones/list", use: list)
        group.post("zones/list", use: list)
        group.post("zones/lookup", use: lookup)
        group.post("zones/modify", use: modify)
        group.post("zones/changes", use: changes)
    }

    @Sendable func list(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let zones = call.scope == .shared ? try await sharedZones(call) : try await server.store.zones(in: try call.database())
        return call.respond(JSONWriter.object { writer in
            writer.array("zones", zones) { writer, zone in ResultWriter.writeZone(zone, to: &writer) }
        })
    }

    @Sendable func lookup(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(LookupZonesRequest.self, from: request)
        guard body.zones.count <= RecordLimits.maximumOperations else {
            throw APIError.badRequest("a lookup may name at most \(RecordLimits.maximumOperations) zones")
        }
        let found: [ZoneID: ZoneInfo]
        if call.scope == .shared {
            let shared = try await sharedZones(call)
            found = Dictionary(shared.map { ($0.zoneID, $0) }, uniquingKeysWith: { first, _ in first })
        } else {
            let own = try await server.store.lookupZones(body.zones.map(\.zoneName), in: try call.database())
            found = Dictionary(body.zones.compactMap { zoneID in
                guard let zone = own[zoneID.zoneName], (try? call.zone(zoneID)) != nil else { return nil }
                return (zoneID, zone)
            }, uniquingKeysWith: { first, _ in first })
        }
        return call.respond(JSONWriter.object { writer in
            writer.array("zones", body.zones) { writer, zoneID in
                if let zone = found[zoneID] {
                    ResultWriter.writeZone(zone, to: &writer)
                } else {
                    ResultWriter.writeZoneFailure(zoneID, code: .zoneNotFound, reason: "zone \(zoneID.zoneName) does not exist", to: &writer)
                }
            }
        })
    }

    @Sendable func modify(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(ModifyZonesRequest.self, from: request)
        guard body.operations.count <= RecordLimits.maximumOperations else {
            throw APIError.badRequest("a request may have at most \(RecordLimits.maximumOperations) operations")
        }
        let user = try call.requireUser()
        if call.scope == .shared {
            return try await leave(body, user: user, call: call)
        }
        var seen = Set<String>()
        let operations: [ZoneOperation] = try body.operations.map { operation in
            let zone = try call.zone(operation.zone.zoneID)
            guard seen.insert(zone.zoneName).inserted else {
                throw APIError.badRequest("zone \(zone.zoneName) appears in more than one operation")
            }
            return operation.operationType == .create ? .create(zoneName: zone.zoneName) : .delete(zoneName: zone.zoneName)
        }
        let results = try await server.store.modifyZones(operations, in: try call.database())
        return call.respond(JSONWriter.object { writer in
            writer.array("zones", results) { writer, result in
                switch result {
                case .saved(let zone):
                    ResultWriter.writeZone(zone, to: &writer)
                case .deleted(let zoneID):
                    writer.beginObject()
                    writer.key("deleted")
                    writer.bool(true)
                    writer.key("zoneID")
                    zoneID.write(to: &writer)
                    writer.endObject()
                case .failed(let zoneID, let error):
                    let apiError = APIError(storageError: error)
                    ResultWriter.writeZoneFailure(zoneID, code: apiError.code, reason: apiError.reason, to: &writer)
                }
            }
        })
    }

    /// The zones shared with the caller, named with their owners, each with its sync token.
    private func sharedZones(_ call: DatabaseCall) async throws -> [ZoneInfo] {
        let zones = try await server.store.sharedZones(
            of: try call.requireUser(), containerID: call.authentication.container.id, environment: call.authentication.environment
        )
        var infos: [ZoneInfo] = []
        for zone in zones {
            if let info = try await server.store.lookupZones([zone.zoneName], in: zone.database)[zone.zoneName] {
                infos.append(info)
            }
        }
        return infos
    }

    /// In the shared database, deleting a zone leaves its shares; nothing can be created there.
    private func leave(_ body: ModifyZonesRequest, user: String, call: DatabaseCall) async throws -> Response {
        var results: [(ZoneID, Bool)] = []
        for operation in body.operations {
            guard operation.operationType != .create else {
                throw APIError.badRequest("zones cannot be created in the shared database; create them in your private database and share them")
            }
            let target = try await call.target(operation.zone.zoneID, store: server.store)
            results.append((target.zone.wireZoneID, try await server.store.leaveShares(in: target.zone, user: user)))
        }
        return call.respond(JSONWriter.object { writer in
            writer.array("zones", results) { writer, result in
                writer.beginObject()
                writer.key("deleted")
                writer.bool(true)
                writer.key("zoneID")
                result.0.write(to: &writer)
                writer.endObject()
            }
        })
    }

    @Sendable func changes(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(ZoneListChangesRequest.self, from: request)
        return try await ChangesController.databaseChanges(
            call: call, store: server.store, syncToken: body.metaSyncToken ?? body.syncToken, limit: body.resultsLimit, legacy: true
        )
    }
}
