import Foundation
import Hummingbird
import StratusModel
import StratusStore

/// What `stratus import` writes through: records copied from another CloudKit server keep their names and stamps,
/// and its progress is kept for the console.
extension AdminController {
    func registerImportRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.post(":container/:environment/records/import", use: importRecords)
        group.put(":container/transfers/:transfer", use: saveTransfer)
        group.get(":container/transfers", use: listTransfers)
    }

    /// `PUT /admin/1/{container}/transfers/{id}` with a ``TransferStatus``: records how an import or export is
    /// going (the container and id are the path's; the time is the server's).
    @Sendable func saveTransfer(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        var status = try await RequestBody.decode(TransferStatus.self, from: request, limit: 64 * 1024)
        status.id = try context.parameters.require("transfer")
        guard RecordNames.isValidName(status.id) else { throw APIError.badRequest("'\(status.id)' is not a valid transfer id") }
        status.containerID = container.id
        status.updatedAt = Authenticator.now()
        try await server.store.saveTransfer(status)
        return try JSONResponse.make(encoding: status)
    }

    /// `GET /admin/1/{container}/transfers`: ``TransfersResponse``, the most recently updated first.
    @Sendable func listTransfers(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        return try JSONResponse.make(encoding: TransfersResponse(transfers: try await server.store.transfers(containerID: container.id)))
    }

    /// `POST /admin/1/{container}/{environment}/records/import` with ``ImportRecordsRequest``: saves each record
    /// in the public database's default zone, replacing one of the same name, with its creation and
    /// modification stamps as sent. Asset values carry receipts of files uploaded first (`assets/upload`, which
    /// the admin key may call). Answers `{records: [...]}` as `records/modify` does, one entry per record.
    @Sendable func importRecords(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let body = try await RequestBody.decode(ImportRecordsRequest.self, from: request, limit: server.configuration.maximumRequestBytes)
        guard body.records.count <= RecordLimits.maximumOperations else {
            throw APIError.badRequest("an import request may carry at most \(RecordLimits.maximumOperations) records, not \(body.records.count)")
        }
        var seen = Set<String>()
        let operations = try body.records.enumerated().map { index, record in
            guard RecordNames.isValidName(record.recordName), RecordNames.isValidName(record.recordType) else {
                throw APIError.badRequest("records[\(index)] needs a valid recordName and recordType")
            }
            guard seen.insert(record.recordName).inserted else {
                throw APIError.badRequest("record \(record.recordName) appears more than once; send each record once")
            }
            return RecordOperation(
                type: .forceReplace, recordName: record.recordName, recordType: record.recordType, fields: record.fields,
                importedStamps: ImportedStamps(created: record.created, modified: record.modified)
            )
        }
        let zone = DatabaseRef.publicDatabase(container.id, environment).zone(ZoneID.defaultZoneName)
        let results = operations.isEmpty ? [] : try await server.store.modifyRecords(RecordBatch(
            zone: zone, operations: operations, atomic: false,
            caller: Caller(userRecordName: DatabaseCall.consoleUser, deviceID: "import", hasAllPermissions: true),
            timestamp: Authenticator.now()
        ))
        var writer = JSONWriter(capacity: 512 * max(1, results.count))
        RecordsResponse.write(results, to: &writer) { writer, result in
            switch result {
            case .saved(let record): record.write(to: &writer, rendering: RecordRendering())
            case .deleted(let deletion): deletion.write(to: &writer)
            case .failed(let failure): ResultWriter.writeFailure(failure, rendering: RecordRendering(), to: &writer)
            }
        }
        return JSONResponse.make(writer)
    }
}
