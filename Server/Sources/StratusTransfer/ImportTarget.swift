import Foundation
import StratusAdminClient
import StratusModel

/// The Stratus server an import writes to, through its admin key: the schema, the asset files, the records with
/// their stamps, and the reads that verify them.
struct ImportTarget: Sendable {
    let baseURL: String
    let adminKey: String
    let container: String
    let environment: Environment
    let backoff: Backoff

    private var admin: AdminClient { AdminClient(url: URL(string: baseURL)!, adminKey: adminKey) }
    private var databasePath: String { "/database/1/\(HTTP.escaped(container))/\(environment.rawValue)/public" }

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

    /// Stores a file for a field of a record, and answers the receipt that lets the record take it.
    func upload(_ file: Data, recordType: String, fieldName: String, recordName: String) async throws -> AssetUploadResult.File {
        let request = try JSONEncoder().encode(AssetUploadRequest(tokens: [.init(recordType: recordType, fieldName: fieldName, recordName: recordName)]))
        let asked = try await send("POST", databasePath + "/assets/upload", body: request, what: "asking the target for an upload URL")
        guard let url = try JSONDecoder().decode(AssetUploadResponse.self, from: asked).tokens.first?.url else {
            throw TransferError("the target answered no upload URL")
        }
        let answer = try await backoff.run("uploading a file of \(recordName)") {
            try await HTTP.send("POST", url, body: file, headers: ["Content-Type": "application/octet-stream"])
        }
        guard answer.status == 200 else { throw TransferError("uploading a file of \(recordName) failed: \(HTTP.describe(answer))") }
        return try JSONDecoder().decode(AssetUploadResult.self, from: answer.body).singleFile
    }

    /// Saves records with their names and stamps, replacing any of the same name.
    func importRecords(_ records: [ImportedRecord]) async throws {
        let body = try JSONEncoder().encode(ImportRecordsRequest(records: records))
        let answer = try await send("POST", "/admin/1/\(HTTP.escaped(container))/\(environment.rawValue)/records/import", body: body, what: "saving records")
        let page = try JSONDecoder().decode(QueryPage.self, from: answer)
        if let failed = page.records.first(where: { $0.serverErrorCode != nil }) {
            throw TransferError("the target refused record \(failed.recordName): \(failed.serverErrorCode ?? ""): \(failed.reason ?? "")")
        }
    }

    /// Tells the target how the import is going, for its console. A refusal does not stop the import.
    /// - Returns: why the target refused, when it did.
    func report(_ status: TransferStatus) async -> String? {
        do {
            let body = try JSONEncoder().encode(status)
            let answer = try await HTTP.send(
                "PUT", baseURL + "/admin/1/\(HTTP.escaped(container))/transfers/\(HTTP.escaped(status.id))", body: body,
                headers: ["Authorization": "Bearer \(adminKey)", "Content-Type": "application/json"]
            )
            return answer.status == 200 ? nil : HTTP.describe(answer)
        } catch {
            return error.localizedDescription
        }
    }

    /// One page of the target's records of a type, as verification reads them.
    func query(recordType: String, continuationMarker: String?, limit: Int) async throws -> QueryPage {
        let body = try JSONEncoder().encode(TypeQuery(query: .init(recordType: recordType), resultsLimit: limit, continuationMarker: continuationMarker))
        return try JSONDecoder().decode(QueryPage.self, from: try await send("POST", databasePath + "/records/query", body: body, what: "reading \(recordType) back"))
    }

    private func send(_ method: String, _ path: String, body: Data, what: String) async throws -> Data {
        let answer = try await backoff.run(what) {
            try await HTTP.send(method, baseURL + path, body: body, headers: ["Authorization": "Bearer \(adminKey)", "Content-Type": "application/json"])
        }
        guard answer.status == 200 else { throw TransferError("\(what) failed: \(HTTP.describe(answer))") }
        return answer.body
    }
}
