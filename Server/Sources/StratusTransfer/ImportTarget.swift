import Foundation
import StratusAdmin
import StratusModel

/// The Stratus server an import writes to, through its admin key: the schema, the asset files, the records with
/// their stamps, the progress for its console, and the reads that verify what arrived.
struct ImportTarget: Sendable {
    let connection: OperatorConnection
    let container: String
    let environment: Environment

    private var admin: AdminClient { AdminClient(url: URL(string: connection.baseURL)!, adminKey: connection.adminKey) }
    private var publicPath: String { OperatorConnection.databasePath(container, environment, .public) }

    /// Makes the container if it is missing, then gives it the schema: development's, and production's too when
    /// the import is into production.
    func applySchema(_ text: String) async throws {
        do {
            _ = try await admin.apiToken(for: container)
            try await admin.importSchema(text, container: container)
            if environment == .production { try await admin.deploy(container: container) }
        } catch let error as AdminError {
            throw TransferError("the target refused the schema: \(error.description)")
        }
    }

    /// Stores a file for a field of a public record, and answers the receipt that lets the record take it.
    func upload(_ file: Data, recordType: String, fieldName: String, recordName: String) async throws -> AssetUploadResult.File {
        try await connection.upload(file, databasePath: publicPath, recordType: recordType, fieldName: fieldName, recordName: recordName)
    }

    /// Saves records with their names and stamps, replacing any of the same name.
    func importRecords(_ records: [ImportedRecord]) async throws {
        try await Self.importRecords(ImportRecordsRequest(records: records), container: container, environment: environment, through: connection)
    }

    /// Sends an import request and checks every record was saved.
    static func importRecords(_ request: ImportRecordsRequest, container: String, environment: Environment, through connection: OperatorConnection) async throws {
        let page = try await connection.post(
            "/admin/1/\(AdminClient.escaped(container))/\(environment.rawValue)/records/import", request, as: QueryPage.self, what: "saving records"
        )
        if let failed = page.records.first(where: { $0.serverErrorCode != nil }) {
            throw TransferError("the target refused record \(failed.recordName): \(failed.serverErrorCode ?? ""): \(failed.reason ?? "")")
        }
    }

    /// Deletes records deleted at the source (an update run); one already gone is no error.
    func deleteRecords(_ recordNames: [String]) async throws {
        let page = try await connection.post(
            publicPath + "/records/modify", ForceDeletes(operations: recordNames.map { .init(record: .init(recordName: $0)) }),
            as: QueryPage.self, what: "deleting records"
        )
        if let failed = page.records.first(where: { $0.serverErrorCode != nil && $0.serverErrorCode != "NOT_FOUND" }) {
            throw TransferError("the target refused to delete record \(failed.recordName): \(failed.serverErrorCode ?? ""): \(failed.reason ?? "")")
        }
    }

    /// One page of the target's records of a type, as verification reads them.
    func query(recordType: String, continuationMarker: String?, limit: Int) async throws -> QueryPage {
        try await connection.post(
            publicPath + "/records/query", TypeQuery(query: .init(recordType: recordType), resultsLimit: limit, continuationMarker: continuationMarker),
            as: QueryPage.self, what: "reading \(recordType) back"
        )
    }
}
