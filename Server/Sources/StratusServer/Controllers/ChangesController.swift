import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// `changes/database` and `changes/zone`: the sync feeds (`docs/protocol.md#zones-and-sync`).
struct ChangesController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.post("changes/database", use: database)
        group.post("changes/zone", use: zone)
    }

    /// A page size within 1...200; absent means 200.
    static func limit(_ requested: Int?) -> Int {
        max(1, min(requested ?? RecordLimits.maximumResults, RecordLimits.maximumResults))
    }

    @Sendable func database(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(DatabaseChangesRequest.self, from: request)
        return try await Self.databaseChanges(call: call, store: server.store, syncToken: body.syncToken, limit: body.resultsLimit)
    }

    /// `{moreComing, syncToken, zones}`; with `legacy` (`zones/changes`) the token is also answered as
    /// `metaSyncToken`, the name the 2016 reference gives it, beside the `syncToken` other clients read.
    static func databaseChanges(call: DatabaseCall, store: any Store, syncToken: String?, limit: Int?, legacy: Bool = false) async throws -> Response {
        let changes = if call.scope == .shared {
            try await store.sharedDatabaseChanges(
                of: try call.requireUser(), containerID: call.authentication.container.id, environment: call.authentication.environment,
                since: syncToken, limit: Self.limit(limit)
            )
        } else {
            try await store.databaseChanges(in: try call.database(), since: syncToken, limit: Self.limit(limit))
        }
        var writer = JSONWriter()
        DatabaseChangesResponse(
            zones: changes.zones.map { ZoneEntry(zoneID: $0.zoneID, deleted: $0.deleted) }, syncToken: changes.syncToken,
            moreComing: changes.moreComing, metaSyncToken: legacy ? changes.syncToken : nil
        ).write(to: &writer)
        return call.respond(writer)
    }

    @Sendable func zone(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(ZoneChangesRequest.self, from: request)
        guard body.zones.count <= RecordLimits.maximumOperations else {
            throw APIError.badRequest("changes/zone may name at most \(RecordLimits.maximumOperations) zones")
        }
        let access = try await call.reader(store: server.store)
        var writer = JSONWriter(capacity: 16_384)
        writer.beginObject()
        writer.key("zones")
        writer.beginArray()
        for item in body.zones {
            writer.arrayElement()
            do {
                let recordTypes = (item.desiredRecordTypes ?? body.desiredRecordTypes).map(Set.init)
                let target = try await call.target(item.zoneID, store: server.store)
                var changes = try await server.store.zoneChanges(ZoneChangesQuery(
                    zone: target.zone, syncToken: item.syncToken,
                    limit: Self.limit(item.resultsLimit ?? body.resultsLimit), recordTypes: recordTypes, matching: item.query
                ))
                changes.changes = try await target.visible(changes.changes.filter(access.shows), store: server.store)
                let rendering = call.rendering(
                    desiredKeys: item.desiredKeys ?? body.desiredKeys, numbersAsStrings: body.numbersAsStrings ?? body.numberAsStrings,
                    in: target.zone.database
                )
                ZoneChangesEntry.write(
                    zoneID: target.zone.wireZoneID, syncToken: changes.syncToken, moreComing: changes.moreComing, to: &writer
                ) { writer in
                    Self.write(changes.changes, rendering: rendering, to: &writer)
                }
            } catch {
                let apiError = APIError(translating: error)
                if apiError.code == .internalError { throw error }
                ResultWriter.writeZoneFailure(item.zoneID, code: apiError.code, reason: apiError.reason, to: &writer)
            }
        }
        writer.endArray()
        writer.endObject()
        return call.respond(writer)
    }

    /// Writes a change feed page: saved records in full, deletions as `{recordName, deleted: true}`.
    static func write(_ changes: [RecordChange], rendering: RecordRendering, to writer: inout JSONWriter) {
        writer.array("records", changes) { writer, change in
            switch change {
            case .saved(let record): record.write(to: &writer, rendering: rendering)
            case .deleted(let deletion): deletion.write(to: &writer)
            }
        }
    }
}
