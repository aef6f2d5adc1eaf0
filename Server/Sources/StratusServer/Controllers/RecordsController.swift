import Foundation
import HTTPTypes
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// `records/modify`, `records/lookup`, `records/query` and `records/changes` (`docs/protocol.md#modifying-records`, `#queries`, `#zones-and-sync`).
struct RecordsController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.post("records/modify", use: modify)
        group.post("records/lookup", use: lookup)
        group.post("records/query", use: query)
        group.post("records/changes", use: changes)
    }

    @Sendable func modify(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(ModifyRecordsRequest.self, from: request)
        context.notes.noteRecordTypes(body.operations.compactMap(\.record.recordType))
        let bytes = request.headers[.contentLength].flatMap(Int64.init) ?? Int64(call.body?.readableBytes ?? 0)
        return call.respond(try await Self.modify(body, call: call, deviceID: Self.deviceID(of: request), server: server, depth: 0, bytes: bytes, notes: context.notes))
    }

    /// `records/modify` for a caller, from the HTTP API or a function (`depth` counts the functions around it);
    /// `bytes` is the request's size, counted against the storage quota of the database it saves into; refused
    /// operations are noted on `notes`.
    static func modify(
        _ body: ModifyRecordsRequest, call: DatabaseCall, deviceID: String, server: ServerState, depth: Int, bytes: Int64, notes: RequestNotes? = nil
    ) async throws -> JSONWriter {
        try RecordWrites.checkCount(of: body.operations, atomic: body.atomic, zoneName: body.zoneID?.zoneName)
        _ = try call.requireUser()
        var caller = call.caller
        caller.deviceID = deviceID
        // In the shared database the write itself decides, in its transaction, what the caller's shares allow
        // (an empty batch still checks the zone is shared with them).
        let zone = call.scope == .shared && !body.operations.isEmpty
            ? try call.sharedZone(body.zoneID) : try await call.target(body.zoneID, store: server.store).zone
        let access = try await call.reader(store: server.store)
        let results = try await server.recordWrites.modify(
            RecordWrites.Write(operations: body.operations, zone: zone, atomic: body.atomic, caller: caller, bytes: bytes, timestamp: ServerClock.now()),
            beforeSave: BeforeSave(call: call, server: server, depth: depth)
        )
        var writer = JSONWriter(capacity: 512 * max(1, results.count))
        RecordsResponse.write(zip(body.operations, results), to: &writer) { writer, item in
            let (operation, result) = item
            let rendering = call.rendering(
                desiredKeys: operation.desiredKeys ?? body.desiredKeys, numbersAsStrings: body.numbersAsStrings, in: zone.database
            )
            switch result {
            case .saved(let record): record.write(to: &writer, rendering: rendering)
            case .deleted(let deletion): deletion.write(to: &writer)
            case .failed(var failure):
                notes?.noteRefusal(APIError.wireCode(of: failure.error).rawValue)
                // A conflict shows the server record only to a caller who may read it.
                if let serverRecord = failure.serverRecord, !access.mayRead(serverRecord) { failure.serverRecord = nil }
                ResultWriter.writeFailure(failure, rendering: rendering, to: &writer)
            }
        }
        return writer
    }

    static func deviceID(of request: Request) -> String {
        guard let value = request.headers[.stratusDeviceID], !value.isEmpty else { return "web" }
        return String(value.prefix(64))
    }

    @Sendable func lookup(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(LookupRecordsRequest.self, from: request)
        return call.respond(try await Self.lookup(body, call: call, server: server))
    }

    /// `records/lookup` for a caller, from the HTTP API or a function.
    static func lookup(_ body: LookupRecordsRequest, call: DatabaseCall, server: ServerState) async throws -> JSONWriter {
        guard body.records.count <= RecordLimits.maximumResults else {
            throw APIError.badRequest("a lookup may name at most \(RecordLimits.maximumResults) records")
        }
        let names = body.records.map(\.recordName)
        let zone: ZoneRef
        let found: [String: Record]
        if call.scope == .shared {
            // What the caller's shares reach, the records and their shares, from one read.
            zone = try call.sharedZone(body.zoneID)
            let lookup = try await server.store.sharedLookup(names, in: zone, user: try call.requireUser())
            guard !lookup.access.isEmpty else { throw DatabaseCall.notShared(zone) }
            found = lookup.visibleRecords
        } else {
            zone = try await call.target(body.zoneID, store: server.store).zone
            found = try await server.store.lookupRecords(names, in: zone)
        }
        let access = try await call.reader(store: server.store)
        var writer = JSONWriter(capacity: 512 * max(1, body.records.count))
        RecordsResponse.write(body.records, to: &writer) { writer, item in
            if let record = found[item.recordName], !access.mayRead(record) {
                ResultWriter.writeFailure(
                    RecordFailure(recordName: item.recordName, error: AccessPolicy.refusal(.read, recordType: record.recordType)),
                    rendering: .full, to: &writer
                )
            } else if let record = found[item.recordName] {
                let rendering = call.rendering(
                    desiredKeys: item.desiredKeys ?? body.desiredKeys, numbersAsStrings: body.numbersAsStrings, in: zone.database
                )
                record.write(to: &writer, rendering: rendering)
            } else {
                ResultWriter.writeMissing(item.recordName, to: &writer)
            }
        }
        return writer
    }

    @Sendable func query(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(QueryRecordsRequest.self, from: request)
        context.notes.noteRecordTypes([body.query.recordType])
        return call.respond(try await Self.query(body, call: call, server: server))
    }

    /// `records/query` for a caller, from the HTTP API or a function.
    static func query(_ body: QueryRecordsRequest, call: DatabaseCall, server: ServerState) async throws -> JSONWriter {
        let limit = body.resultsLimit ?? RecordLimits.maximumResults
        guard limit >= 1 else { throw APIError.badRequest("resultsLimit must be at least 1") }
        // In the shared database a query names its zone, with the zone's owner.
        let target = try await call.target(body.zoneID, store: server.store)
        let zoneName = body.zoneID == nil && body.zoneWide == true ? nil : target.zone.zoneName
        var createdBy: String?
        switch try await call.reader(store: server.store).scope(of: body.query.recordType) {
        case .all: break
        case .createdByCaller: createdBy = call.authentication.userRecordName
        case .none: throw APIError(storageError: AccessPolicy.refusal(.read, recordType: body.query.recordType))
        }
        let page = try await server.store.queryRecords(RecordQuery(
            database: target.zone.database, zoneName: zoneName, query: body.query,
            limit: min(limit, RecordLimits.maximumResults), continuationMarker: body.continuationMarker, createdBy: createdBy,
            sharedRoots: target.access?.roots
        ))
        let rendering = call.rendering(desiredKeys: body.desiredKeys, numbersAsStrings: body.numbersAsStrings, in: target.zone.database)
        var writer = JSONWriter(capacity: 1024 * max(1, page.records.count))
        RecordsResponse.write(page.records, continuationMarker: page.continuationMarker, to: &writer) { writer, record in
            record.write(to: &writer, rendering: rendering)
        }
        return writer
    }

    @Sendable func changes(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(RecordChangesRequest.self, from: request)
        let target = try await call.target(body.zoneID, store: server.store)
        var changes = try await server.store.zoneChanges(ZoneChangesQuery(
            zone: target.zone, syncToken: body.syncToken, limit: ChangesController.limit(body.resultsLimit)
        ))
        let access = try await call.reader(store: server.store)
        changes.changes = try await target.visible(changes.changes.filter(access.shows), store: server.store)
        var writer = JSONWriter(capacity: 1024 * max(1, changes.changes.count))
        writer.beginObject()
        writer.key("moreComing")
        writer.bool(changes.moreComing)
        let rendering = call.rendering(desiredKeys: body.desiredKeys, numbersAsStrings: body.numbersAsStrings, in: target.zone.database)
        ChangesController.write(changes.changes, rendering: rendering, to: &writer)
        writer.key("reverse")
        writer.bool(false)
        writer.key("syncToken")
        writer.string(changes.syncToken)
        writer.endObject()
        return call.respond(writer)
    }
}
