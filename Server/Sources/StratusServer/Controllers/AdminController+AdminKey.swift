import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The server's shared admin key (``AdminKeys``), for administrators: its state, a rotation without a restart, and
/// turning it off once people run the server.
extension AdminController {
    func registerAdminKeyRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get("admin-key", .administrator, use: adminKeyState)
        group.post("admin-key/rotate", .administrator, use: rotateAdminKey)
        group.delete("admin-key", .administrator, use: turnOffAdminKey)
    }

    /// `GET /admin/1/admin-key`: ``AdminKeyStateResponse``, never the key.
    @Sendable func adminKeyState(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let state = try await server.consoleSessions.adminKeys.state()
        let enabled = try await server.consoleSessions.adminKeys.current() != .turnedOff
        var response = try JSONResponse.make(
            encoding: AdminKeyStateResponse(enabled: enabled, rotated: state != nil, changedAt: state?.changedAt, changedBy: state?.changedBy)
        )
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `POST /admin/1/admin-key/rotate`: a new key, answered once (``AdminKeyRotationResponse``); the one it replaces is refused on
    /// every node from then on, and each node's data folder `admin.key` is rewritten. Turns a key that is off back on.
    @Sendable func rotateAdminKey(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let actor = try await requireAdmin(request, context)
        let key = try await server.consoleSessions.adminKeys.rotate(by: actor.name)
        var response = try JSONResponse.make(encoding: AdminKeyRotationResponse(adminKey: key))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `DELETE /admin/1/admin-key`: turns the key off on every node, so that only people act (and the audit log names
    /// them). An administrator does it signed in as themself: with the key itself it is refused, as it would leave
    /// no one able to sign in.
    @Sendable func turnOffAdminKey(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let actor = try await requireAdmin(request, context)
        guard case .person(let account, _) = actor, account.isAdministrator, account.isTOTPEnabled, !account.isDisabled else {
            throw APIError(
                .accessDenied,
                "turn the admin key off signed in as an operator who is an administrator (make one with operators, then sign in to the console): with the key gone, only people sign in"
            )
        }
        try await server.consoleSessions.adminKeys.turnOff(by: actor.name)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("enabled")
            writer.bool(false)
        })
    }
}
