import Foundation
import HTTPTypes
import Hummingbird
import StratusModel
import StratusStore

/// `records/modify`, `records/lookup`, `records/query` and `records/changes` (`ckws-protocol.md` §3-5).
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
        guard body.operations.count <= RecordLimits.maximumOperations else {
            throw APIError.badRequest("a request may have at most \(RecordLimits.maximumOperations) operations, not \(body.operations.count)")
        }
        let user = try call.requireUser()
        let zone = try call.zone(body.zoneID)
        let operations = try Self.operations(from: body.operations)
        let results = operations.isEmpty ? [] : try await server.store.modifyRecords(RecordBatch(
            zone: zone, operations: operations, atomic: body.atomic ?? true,
            caller: Caller(userRecordName: user, deviceID: Self.deviceID(of: request), roles: call.roles), timestamp: Authenticator.now()
        ))
        return call.respond(JSONWriter.object(capacity: 512 * max(1, results.count)) { writer in
            writer.array("records", zip(body.operations, results)) { writer, item in
                let (operation, result) = item
                let rendering = call.rendering(desiredKeys: operation.desiredKeys ?? body.desiredKeys, numbersAsStrings: body.numbersAsStrings)
                switch result {
                case .saved(let record): record.write(to: &writer, rendering: rendering)
                case .deleted(let deletion): deletion.write(to: &writer)
                case .failed(let failure): ResultWriter.writeFailure(failure, rendering: rendering, to: &writer)
                }
            }
        })
    }

    /// Checks operations for shape: names present and valid, one operation per record.
    static func operations(from inputs: [RecordOperationInput]) throws -> [RecordOperation] {
        var seen = Set<String>()
        return try inputs.enumerated().map { index, input in
            var name = input.record.recordName
            if name == nil && input.operationType == .create {
                name = UUID().uuidString
            }
            guard let name else {
                throw APIError.badRequest("operations[\(index)].record.recordName is required for \(input.operationType.rawValue)")
            }
            guard RecordNames.isValidName(name) else {
                throw APIError.badRequest("operations[\(index)].record.recordName '\(name)' is not a valid record name")
            }
            guard seen.insert(name).inserted else {
                throw APIError.badRequest("record \(name) appears in more than one operation; send one operation per record")
            }
            return RecordOperation(
                type: input.operationType, recordName: name, recordType: input.record.recordType,
                recordChangeTag: input.record.recordChangeTag, fields: input.record.fields
            )
        }
    }

    static func deviceID(of request: Request) -> String {
        guard let value = request.headers[.stratusDeviceID], !value.isEmpty else { return "web" }
        return String(value.prefix(64))
    }

    @Sendable func lookup(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(LookupRecordsRequest.self, from: request)
        guard body.records.count <= RecordLimits.maximumResults else {
            throw APIError.badRequest("a lookup may name at most \(RecordLimits.maximumResults) records")
        }
        let zone = try call.zone(body.zoneID)
        let found = try await server.store.lookupRecords(body.records.map(\.recordName), in: zone)
        let access = try await ReadAccess.of(call, store: server.store)
        return call.respond(JSONWriter.object(capacity: 512 * max(1, body.records.count)) { writer in
            writer.array("records", body.records) { writer, item in
                if let record = found[item.recordName], !access.mayRead(record) {
                    ResultWriter.writeFailure(
                        RecordFailure(recordName: item.recordName, error: AccessPolicy.refusal(.read, recordType: record.recordType)),
                        rendering: .full, to: &writer
                    )
                } else if let record = found[item.recordName] {
                    let rendering = call.rendering(desiredKeys: item.desiredKeys ?? body.desiredKeys, numbersAsStrings: body.numbersAsStrings)
                    record.write(to: &writer, rendering: rendering)
                } else {
                    ResultWriter.writeMissing(item.recordName, to: &writer)
                }
            }
        })
    }

    @Sendable func query(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(QueryRecordsRequest.self, from: request)
        let limit = body.resultsLimit ?? RecordLimits.maximumResults
        guard limit >= 1 else { throw APIError.badRequest("resultsLimit must be at least 1") }
        let zoneName: String?
        if let zoneID = body.zoneID {
            zoneName = try call.zone(zoneID).zoneName
        } else {
            zoneName = body.zoneWide == true ? nil : ZoneID.defaultZoneName
        }
        var createdBy: String?
        switch try await ReadAccess.of(call, store: server.store).scope(of: body.query.recordType) {
        case .all: break
        case .createdByCaller: createdBy = call.authentication.userRecordName
        case .none: throw APIError(storageError: AccessPolicy.refusal(.read, recordType: body.query.recordType))
        }
        let page = try await server.store.queryRecords(RecordQuery(
            database: try call.database(), zoneName: zoneName, query: body.query,
            limit: min(limit, RecordLimits.maximumResults), continuationMarker: body.continuationMarker, createdBy: createdBy
        ))
        let rendering = call.rendering(desiredKeys: body.desiredKeys, numbersAsStrings: body.numbersAsStrings)
        return call.respond(JSONWriter.object(capacity: 1024 * max(1, page.records.count)) { writer in
            if let marker = page.continuationMarker {
                writer.key("continuationMarker")
                writer.string(marker)
            }
            writer.array("records", page.records) { writer, record in record.write(to: &writer, rendering: rendering) }
        })
    }

    @Sendable func changes(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(RecordChangesRequest.self, from: request)
        var changes = try await server.store.zoneChanges(ZoneChangesQuery(
            zone: try call.zone(body.zoneID), syncToken: body.syncToken,
            limit: ChangesController.limit(body.resultsLimit)
        ))
        let access = try await ReadAccess.of(call, store: server.store)
        changes.changes = changes.changes.filter(access.shows)
        var writer = JSONWriter(capacity: 1024 * max(1, changes.changes.count))
        writer.beginObject()
        writer.key("moreComing")
        writer.bool(changes.moreComing)
        ChangesController.write(changes.changes, rendering: call.rendering(desiredKeys: body.desiredKeys, numbersAsStrings: body.numbersAsStrings), to: &writer)
        writer.key("reverse")
        writer.bool(false)
        writer.key("syncToken")
        writer.string(changes.syncToken)
        writer.endObject()
        return call.respond(writer)
    }
}
