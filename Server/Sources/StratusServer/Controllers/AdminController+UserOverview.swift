import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// One user seen whole, for support: their account, sessions, zones and records, subscriptions, and what they
/// asked of the server lately (sync requests apart).
extension AdminController {
    func registerUserOverviewRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get(":container/:environment/users/:user/overview", .viewer, use: userOverview)
    }

    /// `GET /admin/1/{container}/{environment}/users/{user}/overview`: `account` (as the user list shows it),
    /// `sessions`, `zones` (their private zones, each with `records`, `recordTypes` and `lastChange`), `subscriptions`
    /// (in the public and their private database), `recentRequests` and `syncRequests` (the latest fetches of changes).
    @Sendable func userOverview(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let environment = try Self.environment(context)
        let user = try context.parameters.require("user")
        guard let account = try await server.store.account(containerID: containerID, userRecordName: user) else {
            throw APIError(.notFound, "user \(user) has no account in \(containerID)")
        }
        let store = server.store
        let roles = try await store.roles(containerID: containerID, environment: environment, userRecordName: user)
        let identities = try await store.identities(containerID: containerID, userRecordName: user).map(\.provider)
        let counts = try await store.recordCounts(of: [user], containerID: containerID, environment: environment)[user] ?? UserRecordCounts()
        let sessions = try await store.sessions(containerID: containerID, userRecordName: user, now: ServerClock.now())
        let privateDatabase = DatabaseRef.privateDatabase(containerID, environment, owner: user)
        let zones = try await store.zoneSummaries(in: privateDatabase)
        let subscriptions = try await store.subscriptions(of: user, in: .publicDatabase(containerID, environment))
            + store.subscriptions(of: user, in: privateDatabase)
        let requests = try await store.requestLog(
            containerID: containerID, matching: RequestLogQuery(environment: environment, userRecordName: user, limit: 200)
        )
        let syncing = requests.filter { $0.operation.contains("changes") }
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("account")
            Self.write(account, roles: roles, identities: identities, counts: counts, to: &writer)
            writer.array("recentRequests", Array(requests.prefix(30))) { writer, entry in Self.write(entry, to: &writer) }
            writer.array("sessions", sessions) { writer, session in
                writer.beginObject()
                writer.key("created")
                writer.integer(session.createdAt)
                if let device = session.deviceName {
                    writer.key("deviceName")
                    writer.string(device)
                }
                writer.key("expires")
                writer.integer(session.expiresAt)
                writer.key("lastUsed")
                writer.integer(session.lastUsedAt)
                writer.endObject()
            }
            writer.array("subscriptions", subscriptions) { writer, subscription in
                writer.beginObject()
                writer.key("created")
                writer.integer(subscription.createdAt)
                writer.key("database")
                writer.string(subscription.database.scope.rawValue)
                writer.key("subscription")
                writer.raw(subscription.body)
                writer.endObject()
            }
            writer.array("syncRequests", Array(syncing.prefix(20))) { writer, entry in Self.write(entry, to: &writer) }
            writer.array("zones", zones) { writer, zone in
                writer.beginObject()
                if let changed = zone.lastChange {
                    writer.key("lastChange")
                    writer.integer(changed)
                }
                writer.key("recordTypes")
                Self.writeCounts(zone.recordTypes, to: &writer)
                writer.key("records")
                writer.integer(zone.records)
                writer.key("zoneName")
                writer.string(zone.zoneName)
                writer.endObject()
            }
        })
    }
}
