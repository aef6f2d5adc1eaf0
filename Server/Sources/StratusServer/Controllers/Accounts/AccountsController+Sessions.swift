import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The signed-in user's account and sessions.
extension AccountsController {
    func registerSessions(on group: RouterGroup<StratusRequestContext>) {
        group.get("account", use: account)
        group.get("sessions", use: sessions)
        group.post("sessions/end", use: endSessions)
    }

    /// `GET account`: the signed-in user's account (`AccountResponse`).
    @Sendable func account(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let account = try await signedInAccount(try await authenticate(request, context))
        return try JSONResponse.make(encoding: AccountResponse(
            userRecordName: account.userRecordName, emailAddress: account.emailAddress, emailVerified: account.isEmailVerified,
            givenName: account.givenName, familyName: account.familyName, created: account.createdAt,
            totpEnabled: account.secondFactor.isTOTPEnabled, recoveryCodesLeft: account.secondFactor.recoveryCodeHashes.count,
            passkeys: account.passkeyCount, hasPassword: account.hasPassword, anonymous: account.isAnonymous
        ))
    }

    /// `GET sessions`: the signed-in user's unexpired sessions, newest first, the current one marked.
    @Sendable func sessions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let sessions = try await server.store.sessions(
            containerID: account.containerID, userRecordName: account.userRecordName, now: ServerClock.now()
        )
        return try JSONResponse.make(encoding: SessionsResponse(sessions: sessions.map { session in
            SessionEntry(
                sessionID: session.id, deviceName: session.deviceName, created: session.createdAt, lastUsed: session.lastUsedAt,
                expires: session.expiresAt, current: session.id == authentication.sessionID
            )
        }))
    }

    /// `POST sessions/end`: ends one of the signed-in user's sessions (`sessionID`), or every other one
    /// (`allOthers`), on every node at once. Answers `{ended}`.
    @Sendable func endSessions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(EndSessionsRequest.self, from: request, limit: RequestLimits.jsonBody)
        var ended: [String] = []
        if body.allOthers == true {
            ended = try await server.store.endSessions(
                containerID: account.containerID, userRecordName: account.userRecordName, keeping: authentication.sessionID
            )
        } else if let id = body.sessionID {
            // Only the caller's own sessions: another user's session ID is as unknown as a made-up one.
            guard let session = try await server.store.session(id: id), session.containerID == account.containerID,
                session.userRecordName == account.userRecordName
            else {
                throw APIError(.notFound, "you have no session \(id)")
            }
            try await server.store.deleteSession(id: id)
            ended = [id]
        } else {
            throw APIError.badRequest("name a sessionID, or set allOthers")
        }
        return try JSONResponse.make(encoding: EndSessionsResponse(ended: ended))
    }
}
