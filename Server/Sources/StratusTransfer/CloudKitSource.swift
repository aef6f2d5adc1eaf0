import Foundation
import StratusAdmin
import StratusModel

/// The public database of a container on a CloudKit Web Services server (Apple's, or another Stratus), read
/// with a server-to-server key.
struct CloudKitSource: Sendable {
    /// Like `https://api.apple-cloudkit.com`, without a trailing slash.
    let baseURL: String
    let container: String
    let environment: Environment
    let signer: RequestSigner
    let backoff: Backoff

    /// One page of the records of `recordType`, from `continuationMarker` on.
    /// - Parameter desiredKeys: `[]` reads only the records' names and stamps.
    func query(recordType: String, continuationMarker: String?, limit: Int, desiredKeys: [String]? = nil) async throws -> QueryPage {
        let body = try JSONEncoder().encode(TypeQuery(
            query: .init(recordType: recordType), resultsLimit: limit, continuationMarker: continuationMarker, desiredKeys: desiredKeys
        ))
        let answer = try await post("records/query", body: body, what: "reading \(recordType)")
        guard answer.status == 200 else {
            let problem = HTTP.describe(answer)
            if problem.localizedCaseInsensitiveContains("queryable") {
                throw TransferError("the source cannot list \(recordType): \(problem). Mark its recordName queryable (\"___recordID\" REFERENCE QUERYABLE) in the source's schema and deploy it, then run the import again")
            }
            throw TransferError("reading \(recordType) from the source failed: \(problem)")
        }
        do {
            return try JSONDecoder().decode(QueryPage.self, from: answer.body)
        } catch {
            throw TransferError("the source's answer for \(recordType) is not a records/query answer: \(error)")
        }
    }

    /// The named records, each in its place: the record, or an error in its place (`NOT_FOUND` once deleted).
    func lookup(_ recordNames: [String]) async throws -> [WireRecord] {
        let body = try JSONEncoder().encode(NameLookup(records: recordNames.map { .init(recordName: $0) }))
        let answer = try await post("records/lookup", body: body, what: "reading \(recordNames.count) changed records")
        guard answer.status == 200 else { throw TransferError("reading changed records from the source failed: \(HTTP.describe(answer))") }
        do {
            return try JSONDecoder().decode(QueryPage.self, from: answer.body).records
        } catch {
            throw TransferError("the source's answer to records/lookup is not one: \(error)")
        }
    }

    /// Posts a signed request to an operation of the public database, waiting out the source's throttling.
    private func post(_ operation: String, body: Data, what: String) async throws -> Backoff.Answer {
        let path = "/database/1/\(AdminClient.escaped(container))/\(environment.rawValue)/public/\(operation)"
        let subpath = (URL(string: baseURL)?.path ?? "") + path
        return try await backoff.run(what) {
            // Signed anew for every try: a signature is good for one request only.
            try await HTTP.send("POST", baseURL + path, body: body, headers: signer.headers(subpath: subpath, body: body).merging(["Content-Type": "application/json"]) { $1 })
        }
    }

    /// The bytes of an asset, from the download URL the source gave.
    func download(_ url: String, what: String) async throws -> Data {
        let answer = try await backoff.run("downloading \(what)") { try await HTTP.send("GET", url) }
        guard answer.status == 200 else { throw TransferError("downloading \(what) failed: \(HTTP.describe(answer))") }
        return answer.body
    }
}
