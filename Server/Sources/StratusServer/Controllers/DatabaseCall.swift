import Foundation
import HTTPTypes
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// One authenticated call to `/database/1/{container}/{environment}/{database}/...`.
struct DatabaseCall: Sendable {
    var authentication: Authentication
    var scope: DatabaseScope
    /// The caller's custom roles in this environment (read for the public database only).
    var roles: Set<String>
    /// A server-to-server key bound to no role acts with every permission.
    var hasAllPermissions = false
    /// The body, when it had to be read to check a signature.
    var body: ByteBuffer?
    var maximumRequestBytes: Int
    /// Where clients reach this server: the configured public URL, else the request's `Host`.
    var baseURL: String
    /// Signs the download URLs of the assets this call returns.
    var assetURLs: AssetURLs
    /// How long those URLs stay valid, in seconds.
    var downloadLifetime: Int

    /// Where a client without a signed-in user is sent to sign in (`AUTHENTICATION_REQUIRED`).
    var redirectURL: String {
        "\(baseURL)/account/1/\(authentication.container.id)/\(authentication.environment.rawValue)/signin"
    }

    var caller: Caller {
        Caller(userRecordName: authentication.userRecordName, roles: roles, hasAllPermissions: hasAllPermissions)
    }

    /// Resolves the container, tokens and database of a request.
    static func resolve(_ request: Request, _ context: StratusRequestContext, using server: ServerState) async throws -> DatabaseCall {
        let containerID = try context.parameters.require("container")
        let environment = try context.parameters.require("environment")
        let database = try context.parameters.require("database")
        guard let scope = DatabaseScope(rawValue: database) else {
            throw APIError.badRequest("database must be public, private or shared, not '\(database)'")
        }
        if ServerKeyVerifier.isSigned(request) {
            return try await resolveSigned(request, context, containerID: containerID, environment: environment, scope: scope, using: server)
        }
        let query = request.uri.queryParameters
        if query["ckAPIToken"] == nil, let actor = try await server.consoleSessions.actor(of: request) {
            return try await resolveOperator(request, actor: actor, containerID: containerID, environment: environment, scope: scope, using: server)
        }
        let authentication = try await server.authenticator.authenticate(request, containerID: containerID, environment: environment, query: query)
        context.notes.noteCaller(containerID: containerID, environment: authentication.environment, userRecordName: authentication.userRecordName)
        if let user = authentication.userRecordName {
            try await server.throttle.admit(.user(user), containerID: containerID)
        }
        var roles: Set<String> = []
        if scope == .public, let user = authentication.userRecordName {
            roles = try await server.authenticator.roles(of: user, containerID: containerID, environment: authentication.environment)
        }
        let call = DatabaseCall(
            authentication: authentication, scope: scope, roles: roles, maximumRequestBytes: server.configuration.maximumRequestBytes,
            baseURL: baseURL(of: request, server), assetURLs: server.assetURLs, downloadLifetime: server.configuration.assetDownloadLifetime
        )
        if scope != .public { _ = try call.requireUser() }
        return call
    }

    /// A request signed with a server-to-server key (`docs/protocol.md#server-to-server-keys`): it acts on the public database
    /// with the rights of the key's role, or every permission when the key has none.
    private static func resolveSigned(
        _ request: Request, _ context: StratusRequestContext, containerID: String, environment name: String, scope: DatabaseScope, using server: ServerState
    ) async throws -> DatabaseCall {
        let environment = try Authenticator.environment(named: name)
        let container = try await server.authenticator.container(containerID)
        let body = try await RequestBody.read(request, limit: server.configuration.maximumRequestBytes)
        let key = try await server.serverKeys.verify(request, body: body, containerID: containerID)
        try await server.throttle.admit(.serverKey(key.id), containerID: containerID)
        guard scope == .public else {
            throw APIError(.accessDenied, "server-to-server keys work on the public database only")
        }
        let developer = try await server.serverKeys.developer(of: containerID)
        // A key is no user: it counts in no active users and logs no user.
        context.notes.noteCaller(containerID: containerID, environment: environment, userRecordName: nil)
        return DatabaseCall(
            authentication: Authentication(container: container, environment: environment, userRecordName: developer.userRecordName),
            scope: scope, roles: key.role.map { [$0] } ?? [], hasAllPermissions: key.role == nil, body: body,
            maximumRequestBytes: server.configuration.maximumRequestBytes, baseURL: baseURL(of: request, server),
            assetURLs: server.assetURLs, downloadLifetime: server.configuration.assetDownloadLifetime
        )
    }

    /// Whether an operator sends the request: it carries the admin key (`Authorization: Bearer`, as tools such as
    /// `stratus import` send it) or comes from a console session.
    static func isOperator(_ request: Request, using server: ServerState) async throws -> Bool {
        try await server.consoleSessions.actor(of: request) != nil
    }

    /// The operations of the database API that change nothing; every other one writes.
    static let readOperations: Set<String> = [
        "records/lookup", "records/query", "records/changes", "changes/zone", "changes/database", "zones/list", "zones/lookup", "zones/changes",
        "subscriptions/list", "subscriptions/lookup", "users/caller", "users/current", "users/discover", "users/lookup/email", "users/lookup/id",
        "users/lookup/phone", "users/lookup/contacts",
    ]

    /// Whether a database API path (`/database/1/{container}/{environment}/{database}/...`) only reads.
    static func onlyReads(_ path: String) -> Bool {
        let operation = path.split(separator: "/", maxSplits: 5, omittingEmptySubsequences: true).dropFirst(5).first.map(String.init) ?? ""
        return readOperations.contains(operation)
    }

    /// The user record name console calls act as in the public database when they name no user.
    static let consoleUser = "_console"

    /// A request from an operator (the admin key or a console session): the operator acts with every permission, in the public database as
    /// the console or the user `X-Stratus-User` names, and in that user's private and shared databases.
    private static func resolveOperator(
        _ request: Request, actor: AdminActor, containerID: String, environment name: String, scope: DatabaseScope, using server: ServerState
    ) async throws -> DatabaseCall {
        let environment = try Authenticator.environment(named: name)
        let container = try await server.authenticator.container(containerID)
        // A viewer reads; a developer also writes in development; an owner writes anywhere.
        let needed: OperatorRole = onlyReads(request.uri.path) ? .viewer : environment == .development ? .developer : .owner
        try AdminAccess.require(needed, in: containerID, of: actor)
        var user = consoleUser
        if let named = request.headers[.stratusUser], !named.isEmpty {
            guard try await server.store.account(containerID: containerID, userRecordName: named) != nil else {
                throw APIError(.notFound, "user \(named) has no account in \(containerID)")
            }
            user = named
        } else if scope != .public {
            throw APIError.badRequest("name the user whose \(scope.rawValue) database to open in X-Stratus-User")
        }
        return DatabaseCall(
            authentication: Authentication(container: container, environment: environment, userRecordName: user),
            scope: scope, roles: [], hasAllPermissions: true,
            maximumRequestBytes: server.configuration.maximumRequestBytes, baseURL: baseURL(of: request, server),
            assetURLs: server.assetURLs, downloadLifetime: server.configuration.assetDownloadLifetime
        )
    }

    /// How this call renders records of `database` (by default the caller's): what the client asked for,
    /// with download URLs for the assets and share URLs on this server.
    func rendering(desiredKeys: [String]?, numbersAsStrings: Bool?, in database: DatabaseRef? = nil) -> RecordRendering {
        let links = (database ?? (try? self.database())).map { database in
            AssetLinks(
                urls: assetURLs, baseURL: baseURL, database: database,
                expiresAt: ServerClock.now() + Int64(downloadLifetime) * 1000
            )
        }
        return RecordRendering(
            desiredKeys: desiredKeys, numbersAsStrings: numbersAsStrings ?? false, assetLinks: links,
            viewer: authentication.userRecordName, shareBaseURL: baseURL
        )
    }

    /// Where clients reach this server: the configured public URL, else the request's `Host`.
    static func baseURL(of request: Request, _ server: ServerState) -> String {
        server.configuration.publicURL ?? "http://\(request.head.authority ?? "localhost")"
    }

    /// The signed-in user.
    /// - Throws: `AUTHENTICATION_REQUIRED` (421) with a `redirectURL` for an anonymous caller.
    func requireUser() throws -> String {
        guard let user = authentication.userRecordName else {
            throw APIError(.authenticationRequired, "this request needs a signed-in user (ckWebAuthToken)", redirectURL: redirectURL)
        }
        return user
    }

    /// The database this call addresses, for zones the caller owns.
    func database() throws -> DatabaseRef {
        let container = authentication.container.id
        switch scope {
        case .public:
            return .publicDatabase(container, authentication.environment)
        case .private:
            return .privateDatabase(container, authentication.environment, owner: try requireUser())
        case .shared:
            throw APIError(.zoneNotFound, "the shared database holds no zone shared with you")
        }
    }

    /// The zone a request's `zoneID` names, checked against the caller's database.
    func zone(_ zoneID: ZoneID?) throws -> ZoneRef {
        let zoneID = zoneID ?? .default
        let database = try database()
        if let owner = zoneID.ownerRecordName, scope == .private, !Self.meansCaller(owner, database) {
            throw APIError(.zoneNotFound, "zone \(zoneID.zoneName) of another user is not in your private database")
        }
        guard RecordNames.isValidName(zoneID.zoneName) else {
            throw APIError.badRequest("zoneName '\(zoneID.zoneName)' is not valid")
        }
        return database.zone(zoneID.zoneName)
    }

    private static func meansCaller(_ owner: String, _ database: DatabaseRef) -> Bool {
        owner == database.ownerRecordName || owner == "_defaultOwner" || owner == "__defaultOwner__"
    }

    /// A JSON response carrying the caller's web auth token back, as CloudKit does.
    /// Answers a wire value written with its writer.
    func respond(_ value: some JSONWritable) -> Response {
        var writer = JSONWriter(capacity: 1024)
        value.write(to: &writer)
        return respond(writer)
    }

    /// Answers an `Encodable` wire value.
    func respond(encoding value: some Encodable) throws -> Response {
        var writer = JSONWriter(capacity: 1024)
        writer.raw(String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
        return respond(writer)
    }

    func respond(_ writer: JSONWriter) -> Response {
        var headers = HTTPFields()
        if let token = authentication.webAuthToken {
            headers[.cloudKitWebAuthToken] = token
        }
        return JSONResponse.make(writer, headers: headers)
    }

    /// Decodes the request body (read already when a signature had to be checked).
    func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        guard let body else { return try await RequestBody.decode(type, from: request, limit: maximumRequestBytes) }
        return try body.readableBytes == 0 ? RequestBody.decode(type, from: Array("{}".utf8)) : RequestBody.decode(type, from: body.readableBytesView)
    }
}

/// Renders per-item outcomes, in the shapes StratusModel's wire types define.
enum ResultWriter {
    /// The record's error entry; an internal failure is not described to the client.
    static func writeFailure(_ failure: RecordFailure, rendering: RecordRendering, to writer: inout JSONWriter) {
        let code = APIError.wireCode(of: failure.error)
        RecordErrorEntry(
            recordName: failure.recordName, serverErrorCode: code.rawValue,
            reason: code == .internalError ? "the server failed to process the record" : failure.error.message,
            uuid: UUID().uuidString.lowercased(), serverRecord: failure.serverRecord
        ).write(to: &writer, rendering: rendering)
    }

    /// `NOT_FOUND` for a lookup miss.
    static func writeMissing(_ recordName: String, to writer: inout JSONWriter) {
        writeFailure(
            RecordFailure(recordName: recordName, error: StorageError(.notFound, "the record does not exist")),
            rendering: .full, to: &writer
        )
    }

    static func writeZoneFailure(_ zoneID: ZoneID, code: ServerErrorCode, reason: String, to writer: inout JSONWriter) {
        ZoneErrorEntry(zoneID: zoneID, serverErrorCode: code.rawValue, reason: reason).write(to: &writer)
    }

    static func writeZone(_ zone: ZoneInfo, to writer: inout JSONWriter) {
        ZoneEntry(zoneID: zone.zoneID, syncToken: zone.syncToken, atomic: zone.atomic).write(to: &writer)
    }
}
