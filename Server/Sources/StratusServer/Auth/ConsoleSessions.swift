import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import StratusServices
import StratusStore

/// Operators' sessions in the web console.
///
/// Signing in (with the admin key, or as an operator with a password and an authenticator code) stores a session and
/// sets a cookie naming it (`HttpOnly`,
/// `SameSite=Strict`). Every request made with the cookie must also carry the session's CSRF token in
/// `X-Stratus-CSRF`: a page on another site can make the browser send the cookie, never the header.
/// Sessions live in the store, so they survive restarts and work on every server node; changing the
/// admin key ends those started with it, and an operator's session ends when they are disabled or deleted.
struct ConsoleSessions: Sendable {
    static let cookieName = "stratus_console"
    /// Stored sessions of the console have this container ID, which no container can have.
    static let sessionContainerID = ""
    static let lifetimeSeconds: Int64 = 12 * 3600

    let store: any Store
    /// The server's admin key, which starts sessions too.
    let adminKeys: AdminKeys
    /// Derives CSRF tokens from session IDs.
    let csrfKey: Data
    let secureCookies: Bool

    /// The stored session's user name of an operator's session.
    static func sessionUser(ofOperator id: String) -> String {
        "operator:" + id
    }

    /// The stored session's user name of an admin key's session: a fingerprint of the key it was started with, so
    /// that rotating the key ends them; `nil` while the key is turned off.
    private func keySessionName() async throws -> String? {
        guard case .key(let hash) = try await adminKeys.current() else { return nil }
        return "console:" + hash.prefix(16)
    }

    /// Starts a session (for an operator, or else for the admin key) and returns the `Set-Cookie` value and the CSRF token.
    func start(operatorID: String? = nil) async throws -> (cookie: String, csrfToken: String, expiresAt: Int64) {
        let name: String
        if let operatorID {
            name = Self.sessionUser(ofOperator: operatorID)
        } else {
            guard let keyName = try await keySessionName() else { throw AdminKeys.turnedOffError }
            name = keyName
        }
        let now = ServerClock.now()
        let session = Session(
            id: Tokens.randomHex(bytes: 32), containerID: Self.sessionContainerID,
            userRecordName: name,
            createdAt: now, expiresAt: now + Self.lifetimeSeconds * 1000
        )
        try await store.createSession(session)
        return (cookie(value: session.id, maxAge: Self.lifetimeSeconds), csrfToken(for: session.id), session.expiresAt)
    }

    /// The live session a request's cookie names, or `nil` when it has no console cookie.
    /// - Parameter requireCSRF: whether the request must carry the CSRF token (all but reading the token itself).
    /// - Throws: `AUTHENTICATION_FAILED` for an unknown, expired or ended session, or a missing or wrong CSRF token.
    func session(of request: Request, requireCSRF: Bool = true) async throws -> Session? {
        guard let id = Self.cookie(named: Self.cookieName, in: request) else { return nil }
        let ended = APIError(.authenticationFailed, "the console session has ended; sign in again")
        guard let session = try await store.session(id: id), session.containerID == Self.sessionContainerID, session.expiresAt > ServerClock.now()
        else { throw ended }
        // A key's session lasts while that key is in force; an operator's, while the session does.
        if !session.userRecordName.hasPrefix("operator:"), try await keySessionName() != session.userRecordName { throw ended }
        if requireCSRF {
            guard let presented = request.headers[.stratusCSRF], Tokens.constantTimeEquals(presented, csrfToken(for: id)) else {
                throw APIError(.authenticationFailed, "this request needs the console's CSRF token in X-Stratus-CSRF")
            }
        }
        return session
    }

    /// Who a request acts as: the admin key it carries, or the person or key its console session was started with;
    /// `nil` when it carries neither.
    /// - Throws: `AUTHENTICATION_FAILED` for an ended session, a missing CSRF token, or an operator disabled or deleted.
    func actor(of request: Request, requireCSRF: Bool = true) async throws -> AdminActor? {
        if let presented = Authenticator.bearerToken(of: request), try await adminKeys.admits(presented) { return .adminKey }
        guard let session = try await session(of: request, requireCSRF: requireCSRF) else { return nil }
        guard session.userRecordName.hasPrefix("operator:") else { return .adminKey }
        let id = String(session.userRecordName.dropFirst("operator:".count))
        guard let account = try await store.operatorAccount(id: id), !account.isDisabled else {
            throw APIError(.authenticationFailed, "this operator account is disabled or deleted; sign in again")
        }
        return .person(account, roles: try await store.operatorRoles(operatorID: id))
    }

    /// Ends a session; answers the `Set-Cookie` value that clears the cookie.
    func end(_ session: Session) async throws -> String {
        try await store.deleteSession(id: session.id)
        return cookie(value: "", maxAge: 0)
    }

    func csrfToken(for sessionID: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(("csrf|" + sessionID).utf8), using: SymmetricKey(data: csrfKey)).map { String(format: "%02x", $0) }.joined()
    }

    private func cookie(value: String, maxAge: Int64) -> String {
        "\(Self.cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secureCookies ? "; Secure" : "")
    }

    /// The value of a cookie in the request's `Cookie` headers.
    static func cookie(named name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    let value = parts[1].trimmingCharacters(in: .whitespaces)
                    return value.isEmpty ? nil : value
                }
            }
        }
        return nil
    }
}
