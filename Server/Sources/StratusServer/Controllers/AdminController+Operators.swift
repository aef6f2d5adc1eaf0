import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Admin endpoints for operators: API token rotation, the user directory, every user's subscriptions and
/// the server's recent activity. The console is built on them.
extension AdminController {
    func registerOperatorRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.post(":container/token", .owner, use: rotateAPIToken)
        group.get(":container/:environment/users", .viewer, use: listUsers)
        group.get(":container/:environment/subscriptions", .viewer, use: listSubscriptions)
        group.get("activity", .anyOperator, use: activity)
    }

    /// `POST /admin/1/{container}/token`: replaces the API token with a fresh one, or with the one the body gives
    /// (`{"apiToken": "<64 hex digits>"}`, a container moved from another server keeping its apps' token); the old one
    /// stops working at once, on every node. Answers `{"containerID", "apiToken"}`.
    @Sendable func rotateAPIToken(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let given = try await RequestBody.decode(APITokenRequest.self, from: request, limit: RequestLimits.tokenBody).apiToken
        let container = try await AdminOperations.rotateAPIToken(containerID: containerID, to: given, store: server.store)
        return try JSONResponse.make(encoding: CreateContainerResponse(containerID: container.id, apiToken: container.apiToken))
    }

    /// `GET /admin/1/{container}/{environment}/users?search=&offset=&limit=`: accounts by email address, each with
    /// its roles in the environment and its record counts.
    @Sendable func listUsers(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let query = request.uri.queryParameters
        let offset = try Self.integer(query["offset"].map(String.init), named: "offset", default: 0, range: 0...1_000_000)
        let limit = try Self.integer(query["limit"].map(String.init), named: "limit", default: 50, range: 1...200)
        _ = try await server.authenticator.container(containerID)
        // One more than asked for tells whether there is a next page.
        let found = try await server.store.accounts(
            containerID: containerID, matching: query["search"].map(String.init), offset: offset, limit: limit + 1
        )
        let page = Array(found.prefix(limit))
        let counts = try await server.store.recordCounts(of: page.map(\.userRecordName), containerID: containerID, environment: environment)
        var roles: [String: Set<String>] = [:]
        var providers: [String: [String]] = [:]
        for account in page {
            roles[account.userRecordName] = try await server.store.roles(
                containerID: containerID, environment: environment, userRecordName: account.userRecordName
            )
            providers[account.userRecordName] = try await server.store.identities(containerID: containerID, userRecordName: account.userRecordName)
                .map(\.provider)
        }
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("moreComing")
            writer.bool(found.count > limit)
            writer.array("users", page) { writer, account in
                Self.write(
                    account, roles: roles[account.userRecordName] ?? [], identities: providers[account.userRecordName] ?? [],
                    counts: counts[account.userRecordName] ?? UserRecordCounts(), to: &writer
                )
            }
        })
    }

    /// One account as the user list and a user's overview show it.
    static func write(_ account: Account, roles: Set<String>, identities: [String], counts: UserRecordCounts, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("anonymous")
        writer.bool(account.isAnonymous)
        writer.key("created")
        writer.integer(account.createdAt)
        writer.key("developer")
        writer.bool(account.isDeveloper)
        writer.key("disabled")
        writer.bool(account.isDisabled)
        if let email = account.emailAddress {
            writer.key("emailAddress")
            writer.string(email)
        }
        writer.key("emailVerified")
        writer.bool(account.isEmailVerified)
        if let familyName = account.familyName {
            writer.key("familyName")
            writer.string(familyName)
        }
        if let givenName = account.givenName {
            writer.key("givenName")
            writer.string(givenName)
        }
        writer.key("hasPassword")
        writer.bool(account.hasPassword)
        writer.array("identities", identities) { writer, provider in writer.string(provider) }
        writer.key("isDiscoverable")
        writer.bool(account.isDiscoverable)
        writer.key("passkeys")
        writer.integer(Int64(account.passkeyCount))
        writer.key("privateRecords")
        writer.integer(Int64(counts.privateRecords))
        writer.key("publicRecords")
        writer.integer(Int64(counts.publicRecords))
        writer.array("roles", roles.sorted()) { writer, role in writer.string(role) }
        writer.key("totpEnabled")
        writer.bool(account.secondFactor.isTOTPEnabled)
        writer.key("userRecordName")
        writer.string(account.userRecordName)
        writer.endObject()
    }

    /// `GET /admin/1/{container}/{environment}/subscriptions?database=public|private`: every user's subscriptions
    /// in that database, each as `{"owner", "databaseOwner"?, "created", "subscription"}`.
    @Sendable func listSubscriptions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let name = request.uri.queryParameters["database"].map(String.init) ?? "public"
        guard let scope = DatabaseScope(rawValue: name) else {
            throw APIError.badRequest("database must be public, private or shared, not '\(name)'")
        }
        _ = try await server.authenticator.container(containerID)
        let subscriptions = try await server.store.subscriptions(containerID: containerID, environment: environment, scope: scope)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.array("subscriptions", subscriptions) { writer, subscription in
                writer.beginObject()
                writer.key("created")
                writer.integer(subscription.createdAt)
                if subscription.database.scope != .public {
                    writer.key("databaseOwner")
                    writer.string(subscription.database.ownerRecordName)
                }
                writer.key("owner")
                writer.string(subscription.owner)
                writer.key("subscription")
                writer.raw(subscription.body)
                writer.endObject()
            }
        })
    }

    /// `GET /admin/1/activity?after=N`: this node's latest requests after sequence number `N` (oldest first), and
    /// its counters for the last hour: `requests`, `errors` and the latency quantiles `p50Ms`, `p99Ms`; `node`
    /// names the node (behind a load balancer, each answer may come from another).
    @Sendable func activity(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let after = try Self.integer(request.uri.queryParameters["after"].map(String.init), named: "after", default: 0, range: 0...Int.max)
        let recent = server.activity.recent(after: after)
        let (summary, minutes) = server.activity.lastHour()
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("lastHour")
            writer.beginObject()
            writer.key("errors")
            writer.integer(Int64(summary.errors))
            if let p50 = summary.p50Microseconds, let p99 = summary.p99Microseconds {
                writer.key("p50Ms")
                writer.double(Double(p50) / 1000)
                writer.key("p99Ms")
                writer.double(Double(p99) / 1000)
            }
            writer.key("requests")
            writer.integer(Int64(summary.requests))
            writer.endObject()
            writer.array("minutes", minutes) { writer, minute in
                writer.beginObject()
                writer.key("errors")
                writer.integer(Int64(minute.errors))
                writer.key("requests")
                writer.integer(Int64(minute.requests))
                writer.key("start")
                writer.integer(minute.minute * 60_000)
                writer.endObject()
            }
            writer.key("node")
            writer.string(server.configuration.nodeName)
            writer.array("recent", recent) { writer, entry in
                writer.beginObject()
                writer.key("method")
                writer.string(entry.method)
                writer.key("ms")
                writer.double(Double(entry.microseconds) / 1000)
                writer.key("path")
                writer.string(entry.path)
                writer.key("sequence")
                writer.integer(Int64(entry.sequence))
                writer.key("status")
                writer.integer(Int64(entry.status))
                writer.key("time")
                writer.integer(entry.time)
                writer.endObject()
            }
        })
    }

    /// A query parameter as an integer in `range`, or `fallback` when absent.
    /// - Throws: `BAD_REQUEST` naming the parameter.
    static func integer(_ text: String?, named name: String, default fallback: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text, !text.isEmpty else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}

extension AdminOperations {
    /// Gives a container a fresh API token, or `token` (64 hexadecimal digits, as the server makes them).
    /// - Throws: `NOT_FOUND` for an unknown container; `BAD_REQUEST` for a token of another shape; `EXISTS` for a token
    ///   another container of this server has.
    public static func rotateAPIToken(containerID: String, to token: String? = nil, store: any AccountStore) async throws -> ContainerInfo {
        guard var container = try await store.container(id: containerID) else {
            throw APIError(.notFound, "container \(containerID) does not exist")
        }
        if let token {
            guard token.utf8.count == 64, token.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
                throw APIError.badRequest("apiToken must be 64 lowercase hexadecimal digits, as a Stratus server makes them")
            }
            if try await store.containers().contains(where: { $0.apiToken == token && $0.id != containerID }) {
                throw APIError(.exists, "another container of this server has that API token")
            }
        }
        container.apiToken = token ?? Tokens.randomHex(bytes: 32)
        try await store.setAPIToken(container.apiToken, containerID: containerID)
        return container
    }
}
