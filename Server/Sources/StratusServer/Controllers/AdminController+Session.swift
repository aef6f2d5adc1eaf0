import Hummingbird
import StratusModel

/// Console sign-in: `POST /admin/1/session` trades the admin key for a session cookie, `GET` answers the
/// session's CSRF token (for a page that was reloaded), `DELETE` signs out.
extension AdminController {
    func registerSessionRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.post("session", use: signIn)
        group.get("session", use: currentSession)
        group.delete("session", use: signOut)
    }

    /// `POST /admin/1/session` with `{"adminKey"}` answers `{"csrfToken", "expires"}` and sets the cookie.
    /// - Throws: `AUTHENTICATION_FAILED` for a wrong key; `THROTTLED` after repeated wrong keys.
    @Sendable func signIn(_ request: Request, context: StratusRequestContext) async throws -> Response {
        struct Body: Decodable { var adminKey: String }
        let body = try await RequestBody.decode(Body.self, from: request, limit: 16 * 1024)
        let throttleKey = "console"
        let address = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        if let retryAfter = try await server.signInThrottle.retryAfter(account: throttleKey, address: address) {
            throw APIError(.throttled, "too many wrong admin keys from this address; try again later", retryAfter: retryAfter)
        }
        guard Authenticator.constantTimeEquals(body.adminKey, server.configuration.adminKey) else {
            try await server.signInThrottle.recordFailure(account: throttleKey, address: address)
            throw APIError(.authenticationFailed, "that is not this server's admin key")
        }
        try await server.signInThrottle.recordSuccess(account: throttleKey, address: address)
        let session = try await server.consoleSessions.start()
        return Self.sessionResponse(csrfToken: session.csrfToken, expiresAt: session.expiresAt, cookie: session.cookie)
    }

    /// `GET /admin/1/session`: the CSRF token of the session the cookie names.
    /// - Throws: `AUTHENTICATION_FAILED` without a live session.
    @Sendable func currentSession(_ request: Request, context: StratusRequestContext) async throws -> Response {
        guard let session = try await server.consoleSessions.session(of: request, requireCSRF: false) else {
            throw APIError(.authenticationFailed, "not signed in to the console")
        }
        return Self.sessionResponse(csrfToken: server.consoleSessions.csrfToken(for: session.id), expiresAt: session.expiresAt, cookie: nil)
    }

    /// `DELETE /admin/1/session`: ends the session; its cookie no longer works anywhere.
    @Sendable func signOut(_ request: Request, context: StratusRequestContext) async throws -> Response {
        guard let session = try await server.consoleSessions.session(of: request) else {
            throw APIError(.authenticationFailed, "not signed in to the console")
        }
        let cookie = try await server.consoleSessions.end(session)
        return JSONResponse.make(JSONWriter.object { _ in }, headers: [.setCookie: cookie])
    }

    private static func sessionResponse(csrfToken: String, expiresAt: Int64, cookie: String?) -> Response {
        var headers = HTTPFields()
        if let cookie { headers[.setCookie] = cookie }
        headers[.cacheControl] = "no-store"
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("csrfToken")
            writer.string(csrfToken)
            writer.key("expires")
            writer.integer(expiresAt)
        }, headers: headers)
    }
}
