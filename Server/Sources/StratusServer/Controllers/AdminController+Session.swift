import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Console sign-in: `POST /admin/1/session` trades the admin key, or an operator's password and authenticator code,
/// for a session cookie, `GET` answers the
/// session's CSRF token (for a page that was reloaded), `DELETE` signs out.
extension AdminController {
    func registerSessionRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.post("session", use: signIn)
        group.get("session", use: currentSession)
        group.delete("session", use: signOut)
    }

    /// `POST /admin/1/session` with `{"adminKey"}`, or an operator's `{"emailAddress", "password", "code"}` (the
    /// authenticator app's), answers `{"csrfToken", "expires"}` and sets the cookie.
    /// - Throws: `AUTHENTICATION_FAILED` for a wrong key, password or code; `THROTTLED` after repeated failures.
    @Sendable func signIn(_ request: Request, context: StratusRequestContext) async throws -> Response {
        struct Body: Decodable {
            var adminKey: String?
            var emailAddress: String?
            var password: String?
            var code: String?
        }
        let body = try await RequestBody.decode(Body.self, from: request, limit: RequestLimits.formBody)
        let address = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        let session: (cookie: String, csrfToken: String, expiresAt: Int64)
        let actor: String
        if let email = body.emailAddress {
            let account = try await checkPassword(email, body.password ?? "", request, context)
            guard account.isTOTPEnabled, let sealed = account.sealedTOTPSecret, let secret = server.secondFactors.open(sealed) else {
                throw APIError(.accessDenied, "set up an authenticator app first (operators/enrolment), then sign in with its code")
            }
            guard let step = TOTP.matchingStep(body.code ?? "", secret: secret),
                try await server.store.useOperatorTOTPStep(step, operatorID: account.id)
            else {
                try await server.signInThrottle.recordFailure(account: "operator:" + account.emailAddress, address: address)
                throw APIError(.authenticationFailed, "that is not the authenticator app's current code")
            }
            session = try await server.consoleSessions.start(operatorID: account.id)
            actor = account.emailAddress
        } else {
            let throttleKey = "console"
            if let retryAfter = try await server.signInThrottle.retryAfter(account: throttleKey, address: address) {
                throw APIError(.throttled, "too many wrong admin keys from this address; try again later", retryAfter: retryAfter)
            }
            guard try await server.consoleSessions.adminKeys.admits(body.adminKey ?? "") else {
                if try await server.consoleSessions.adminKeys.current() == .turnedOff { throw AdminKeys.turnedOffError }
                try await server.signInThrottle.recordFailure(account: throttleKey, address: address)
                throw APIError(.authenticationFailed, "that is not this server's admin key")
            }
            try await server.signInThrottle.recordSuccess(account: throttleKey, address: address)
            session = try await server.consoleSessions.start()
            actor = AdminActor.adminKey.name
        }
        try await server.store.appendAudit(AuditEntry(
            id: AuditEntry.newID(time: ServerClock.now()), time: ServerClock.now(), actor: actor, containerID: nil,
            action: "POST /admin/1/session (signed in)", status: 200, address: address
        ))
        return Self.sessionResponse(csrfToken: session.csrfToken, expiresAt: session.expiresAt, cookie: session.cookie, actor: nil)
    }

    /// `GET /admin/1/session`: the CSRF token of the session the cookie names.
    /// - Throws: `AUTHENTICATION_FAILED` without a live session.
    @Sendable func currentSession(_ request: Request, context: StratusRequestContext) async throws -> Response {
        guard let session = try await server.consoleSessions.session(of: request, requireCSRF: false),
            let actor = try await server.consoleSessions.actor(of: request, requireCSRF: false)
        else {
            throw APIError(.authenticationFailed, "not signed in to the console")
        }
        return Self.sessionResponse(csrfToken: server.consoleSessions.csrfToken(for: session.id), expiresAt: session.expiresAt, cookie: nil, actor: actor)
    }

    /// `DELETE /admin/1/session`: ends the session; its cookie no longer works anywhere.
    @Sendable func signOut(_ request: Request, context: StratusRequestContext) async throws -> Response {
        guard let session = try await server.consoleSessions.session(of: request) else {
            throw APIError(.authenticationFailed, "not signed in to the console")
        }
        let cookie = try await server.consoleSessions.end(session)
        return JSONResponse.make(JSONWriter.object { _ in }, headers: [.setCookie: cookie])
    }

    /// The session's token, and who it acts as (`actor`: `{name, administrator, roles}`) when known.
    private static func sessionResponse(csrfToken: String, expiresAt: Int64, cookie: String?, actor: AdminActor?) -> Response {
        var headers = HTTPFields()
        if let cookie { headers[.setCookie] = cookie }
        headers[.cacheControl] = "no-store"
        return JSONResponse.make(JSONWriter.object { writer in
            if let actor {
                writer.key("actor")
                writer.beginObject()
                writer.key("administrator")
                writer.bool(actor.isAdministrator)
                writer.key("name")
                writer.string(actor.name)
                writer.key("roles")
                writer.beginObject()
                if case .person(_, let roles) = actor {
                    for container in roles.keys.sorted() {
                        writer.key(container)
                        writer.string(roles[container]?.rawValue ?? "")
                    }
                }
                writer.endObject()
                writer.endObject()
            }
            writer.key("csrfToken")
            writer.string(csrfToken)
            writer.key("expires")
            writer.integer(expiresAt)
        }, headers: headers)
    }
}
