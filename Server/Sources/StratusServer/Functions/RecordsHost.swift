import Foundation
import StratusFunctions
import StratusModel
import StratusServices
import StratusStore

/// Who a function acts as when it reads and writes records through the host interface.
struct FunctionIdentity: Sendable {
    /// The user records are read and written as; `nil`: nobody signed in (what anyone may read, nothing more).
    var userRecordName: String?
    var roles: Set<String>
    /// Acting as the binding's role rather than a caller: the public database only.
    var actsAsRole: Bool

    /// The user name a function acting as a role writes records as (their creator and last modifier).
    static let roleUser = "_functions"

    /// The binding's role when it names one, else the caller (nobody, for triggers without a caller).
    static func of(_ binding: FunctionBinding, caller: String?, callerRoles: Set<String>) -> FunctionIdentity {
        if let role = binding.runAsRole {
            return FunctionIdentity(userRecordName: roleUser, roles: [role], actsAsRole: true)
        }
        return FunctionIdentity(userRecordName: caller, roles: callerRoles, actsAsRole: false)
    }
}

/// What a module reaches through `stratus.request`: `records/lookup`, `records/query` and `records/modify` of
/// CloudKit's API, the same JSON in and out, as ``FunctionIdentity`` and with the same rules (writes go through
/// `beforeSave` functions too, nested at most ``maximumDepth`` deep).
///
/// A request is `{"path": "records/query", "database": "public", "body": {…}}`; the answer is the API's response
/// body, or a CloudKit error object (`serverErrorCode`, `reason`).
struct RecordsHost: FunctionHost {
    let server: ServerState
    let container: ContainerInfo
    let environment: StratusModel.Environment
    let identity: FunctionIdentity
    /// Where the records' asset URLs point.
    let baseURL: String
    /// How many functions are running around this one (a host write from a `beforeSave` function runs others).
    let depth: Int

    static let maximumDepth = 3

    private struct Envelope: Decodable {
        var path: String
        var database: String?
    }

    private struct Body<Value: Decodable>: Decodable {
        var body: Value?
    }

    func request(_ bytes: [UInt8]) async -> [UInt8] {
        do {
            return try await answer(bytes).bytes
        } catch {
            let failure = APIError(translating: error)
            var writer = JSONWriter()
            ErrorResponse(
                serverErrorCode: failure.code.rawValue,
                reason: failure.code == .internalError ? "the server failed to process the request" : failure.reason,
                uuid: UUID().uuidString.lowercased()
            ).write(to: &writer)
            return writer.bytes
        }
    }

    private func answer(_ bytes: [UInt8]) async throws -> JSONWriter {
        let envelope = try RequestBody.decode(Envelope.self, from: bytes)
        let database = envelope.database ?? "public"
        guard let scope = DatabaseScope(rawValue: database) else {
            throw APIError.badRequest("database must be public, private or shared, not '\(database)'")
        }
        if identity.actsAsRole && scope != .public {
            throw APIError(.accessDenied, "a function acting as a role reaches the public database only")
        }
        let call = DatabaseCall(
            authentication: Authentication(container: container, environment: environment, userRecordName: identity.userRecordName),
            scope: scope, roles: identity.roles, maximumRequestBytes: server.configuration.maximumRequestBytes, baseURL: baseURL,
            assetURLs: server.assetURLs, downloadLifetime: server.configuration.assetDownloadLifetime
        )
        if scope != .public { _ = try call.requireUser() }
        switch envelope.path {
        case "records/lookup":
            return try await RecordsController.lookup(try body(LookupRecordsRequest.self, bytes), call: call, server: server)
        case "records/query":
            return try await RecordsController.query(try body(QueryRecordsRequest.self, bytes), call: call, server: server)
        case "records/modify":
            guard depth < Self.maximumDepth else {
                throw APIError(.badRequest, "functions writing records nest at most \(Self.maximumDepth) deep")
            }
            return try await RecordsController.modify(
                try body(ModifyRecordsRequest.self, bytes), call: call, deviceID: "function", server: server, depth: depth + 1,
                bytes: Int64(bytes.count)
            )
        default:
            throw APIError.badRequest("the host answers records/lookup, records/query and records/modify, not '\(envelope.path)'")
        }
    }

    private func body<Value: Decodable>(_ type: Value.Type, _ bytes: [UInt8]) throws -> Value {
        guard let body = try RequestBody.decode(Body<Value>.self, from: bytes).body else {
            throw APIError.badRequest("the request has no body")
        }
        return body
    }
}
