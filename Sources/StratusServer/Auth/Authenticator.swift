import Crypto
import Foundation
import Hummingbird
import StratusModel
import StratusStore
import Synchronization

/// Who is calling, as established from a request's tokens.
struct Authentication: Sendable {
    var container: ContainerInfo
    var environment: StratusModel.Environment
    /// `nil` for an anonymous caller (API token only).
    var userRecordName: String?
    /// The web auth token as received, echoed back in `X-Apple-CloudKit-Web-Auth-Token`.
    var webAuthToken: String?
}

/// Resolves containers, API tokens and web auth tokens, and starts and ends sessions.
///
/// A signed-in request costs no storage read once its session is cached: containers are cached
/// in memory, and tokens are checked by signature first (``WebAuthTokens``).
final class Authenticator: Sendable {
    let store: any Store
    private let tokens: WebAuthTokens
    private let sessions = SessionCache()
    /// Containers by ID, with when they were read: re-read after a minute, so a token rotated on another
    /// server node stops working here within that time.
    private let containers = Mutex<[String: (container: ContainerInfo, readAt: ContinuousClock.Instant)]>([:])
    /// Users' custom roles by container, environment and user, with when they were read.
    private let roleCache = Mutex<[String: (roles: Set<String>, readAt: ContinuousClock.Instant)]>([:])
    private let sessionLifetime: Int64

    init(store: any Store, signingKey: Data, sessionLifetime: Int) {
        self.store = store
        tokens = WebAuthTokens(key: signingKey)
        self.sessionLifetime = Int64(sessionLifetime) * 1000
    }

    /// The container, from memory or storage.
    /// - Throws: `NOT_FOUND` for an unknown container.
    func container(_ id: String) async throws -> ContainerInfo {
        if let cached = containers.withLock({ $0[id] }), ContinuousClock.now - cached.readAt < .seconds(60) { return cached.container }
        guard let container = try await store.container(id: id) else {
            throw APIError(.notFound, "container \(id) does not exist")
        }
        remember(container)
        return container
    }

    func remember(_ container: ContainerInfo) {
        containers.withLock { $0[container.id] = (container, ContinuousClock.now) }
    }

    /// Establishes the caller of a container-scoped request.
    /// - Throws: `AUTHENTICATION_FAILED` for a missing or wrong API token or a bad web auth token.
    func authenticate(_ request: Request, containerID: String, environment: String) async throws -> Authentication {
        let environment = try Self.environment(named: environment)
        let container = try await container(containerID)
        let query = request.uri.queryParameters
        guard let apiToken = query["ckAPIToken"].map(String.init), !apiToken.isEmpty else {
            throw APIError(.authenticationFailed, "ckAPIToken is required")
        }
        guard Self.constantTimeEquals(apiToken, container.apiToken) else {
            throw APIError(.authenticationFailed, "ckAPIToken is not valid for this container")
        }
        var authentication = Authentication(container: container, environment: environment)
        if let token = (query["ckWebAuthToken"] ?? query["ckSession"]).map(String.init), !token.isEmpty {
            authentication.userRecordName = try await user(ofToken: token, containerID: containerID)
            authentication.webAuthToken = token
        }
        return authentication
    }

    private func user(ofToken token: String, containerID: String) async throws -> String {
        let now = Self.now()
        // The cache key is the whole token, whose signature covers the container: a hit is this container's.
        let cacheKey = containerID + "|" + token
        if let user = sessions.userRecordName(ofToken: cacheKey, now: now) { return user }
        guard let claims = tokens.verify(token, containerID: containerID, now: now) else {
            throw APIError(.authenticationFailed, "ckWebAuthToken is not valid or has expired; sign in again")
        }
        guard let session = try await store.session(id: claims.sessionID), session.containerID == containerID,
            session.userRecordName == claims.userRecordName
        else {
            throw APIError(.authenticationFailed, "ckWebAuthToken was signed out; sign in again")
        }
        sessions.remember(token: cacheKey, sessionID: session.id, userRecordName: session.userRecordName, expiresAt: claims.expiresAt)
        return session.userRecordName
    }

    /// The custom roles of a user in a container environment, from memory or storage.
    ///
    /// Re-read after 60 seconds, so an assignment made on another server node takes effect within that time.
    func roles(of user: String, containerID: String, environment: StratusModel.Environment) async throws -> Set<String> {
        let key = "\(containerID)|\(environment.rawValue)|\(user)"
        let now = ContinuousClock.now
        if let cached = roleCache.withLock({ $0[key] }), now - cached.readAt < .seconds(60) { return cached.roles }
        let roles = try await store.roles(containerID: containerID, environment: environment, userRecordName: user)
        roleCache.withLock { cache in
            if cache.count > 100_000 { cache.removeAll() }
            cache[key] = (roles, now)
        }
        return roles
    }

    /// Forgets a user's cached roles after they change.
    func forgetRoles(of user: String, containerID: String, environment: StratusModel.Environment) {
        _ = roleCache.withLock { $0.removeValue(forKey: "\(containerID)|\(environment.rawValue)|\(user)") }
    }

    /// The environment a path names, in any letter case (CloudKitPy's documented constant is `DEVELOPMENT`).
    /// - Throws: `BAD_REQUEST` for anything but `development` and `production`.
    static func environment(named name: String) throws -> StratusModel.Environment {
        guard let environment = StratusModel.Environment(rawValue: name.lowercased()) else {
            throw APIError.badRequest("environment must be development or production, not '\(name)'")
        }
        return environment
    }

    /// Starts a session for an account and returns its web auth token.
    func startSession(for account: Account) async throws -> String {
        let now = Self.now()
        let session = Session(
            id: Self.randomHex(bytes: 16), containerID: account.containerID, userRecordName: account.userRecordName,
            createdAt: now, expiresAt: now + sessionLifetime
        )
        try await store.createSession(session)
        let token = tokens.issue(
            .init(sessionID: session.id, userRecordName: session.userRecordName, expiresAt: session.expiresAt),
            containerID: account.containerID
        )
        sessions.remember(
            token: account.containerID + "|" + token, sessionID: session.id, userRecordName: session.userRecordName,
            expiresAt: session.expiresAt
        )
        return token
    }

    /// Ends the session a token names.
    func endSession(token: String, containerID: String) async throws {
        guard let claims = tokens.verify(token, containerID: containerID, now: Self.now()) else {
            throw APIError(.authenticationFailed, "ckWebAuthToken is not valid or has expired")
        }
        sessions.forget(session: claims.sessionID)
        try await store.deleteSession(id: claims.sessionID)
    }

    static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }

    /// `bytes` random bytes as unpadded base64url: receipts and courier tokens.
    static func randomBase64URL(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return WebAuthTokens.base64URL((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
