import Crypto
import Foundation
import Hummingbird
import HummingbirdCore
import StratusModel
import StratusServices
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
    /// The session the web auth token names.
    var sessionID: String?
}

/// Resolves containers, API tokens and web auth tokens, and starts and ends sessions.
///
/// A signed-in request costs no storage read once its session is cached: containers are cached
/// in memory, and tokens are checked by signature first (``WebAuthTokens``). The caches follow the store's
/// events (a sign-out, a rotated API token, changed roles), whichever process made the change, and each
/// request first catches up with the events committed before it, so such a change holds at once everywhere.
/// Entries are also re-read after a minute, should events ever fail to arrive.
final class Authenticator: Sendable {
    let store: any Store
    private let tokens: WebAuthTokens
    private let sessions = SessionCache()
    /// Containers by ID.
    private let containers = EventFedCache<String, ContainerInfo>()
    /// Users' custom roles by container, environment and user.
    private let roleCache = EventFedCache<String, Set<String>>()
    private let sessionLifetime: Int64
    /// When this node last recorded each session's use.
    private let lastNotedUse = Mutex<[String: Int64]>([:])
    /// Milliseconds between records of one session's use: a session's "last used" is that precise.
    static let useNotingInterval: Int64 = 300_000

    init(store: any Store, signingKey: Data, sessionLifetime: Int) {
        self.store = store
        tokens = WebAuthTokens(key: signingKey)
        self.sessionLifetime = Int64(sessionLifetime) * 1000
        store.observeEvents { [weak self] delivery in self?.handle(delivery) }
    }

    /// Forgets what a store event makes stale.
    private func handle(_ delivery: StoreEventDelivery) {
        guard case .committed(let events) = delivery else {
            sessions.forgetAll()
            containers.forgetAll()
            roleCache.forgetAll()
            return
        }
        for event in events {
            switch event {
            case .sessionEnded(let id):
                sessions.forget(session: id)
            case .containerChanged(let id):
                containers.forget(id)
            case .rolesChanged(let containerID, let environment, let user):
                roleCache.forget(Self.roleKey(user, containerID, environment))
            default:
                break
            }
        }
    }

    /// The token of an `Authorization: Bearer <token>` header (the admin key, for admin calls).
    static func bearerToken(of request: Request) -> String? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return String(header.dropFirst(7))
    }

    /// The container, from memory or storage.
    /// - Throws: `NOT_FOUND` for an unknown container.
    func container(_ id: String) async throws -> ContainerInfo {
        guard let container = try await containers.value(for: id, load: { try await store.container(id: id) }) else {
            throw APIError(.notFound, "container \(id) does not exist")
        }
        return container
    }

    /// Establishes the caller of a container-scoped request.
    /// - Throws: `AUTHENTICATION_FAILED` for a missing or wrong API token or a bad web auth token.
    /// - Parameter query: the request's query parameters, when the caller has them parsed already.
    func authenticate(
        _ request: Request, containerID: String, environment: String, query: FlatDictionary<Substring, Substring>? = nil
    ) async throws -> Authentication {
        let environment = try Self.environment(named: environment)
        try await store.catchUpEvents()
        let container = try await container(containerID)
        let query = query ?? request.uri.queryParameters
        guard let apiToken = query["ckAPIToken"].map(String.init), !apiToken.isEmpty else {
            throw APIError(.authenticationFailed, "ckAPIToken is required")
        }
        guard Tokens.constantTimeEquals(apiToken, container.apiToken) else {
            throw APIError(.authenticationFailed, "ckAPIToken is not valid for this container")
        }
        var authentication = Authentication(container: container, environment: environment)
        if let token = Self.sessionToken(in: query) {
            let (user, sessionID) = try await user(ofToken: token, containerID: containerID)
            authentication.userRecordName = user
            authentication.sessionID = sessionID
            authentication.webAuthToken = token
            noteUse(of: sessionID)
        }
        return authentication
    }

    /// The session a request names (`ckWebAuthToken`, or CloudKit JS's `ckSession`), if any: CloudKit JS sends
    /// `ckSession=null` (or `undefined`) while nobody is signed in, which names none.
    static func sessionToken(in query: FlatDictionary<Substring, Substring>) -> String? {
        for name in ["ckWebAuthToken", "ckSession"] {
            if let value = query[Substring(name)].map(String.init), !["", "null", "undefined"].contains(value) { return value }
        }
        return nil
    }

    /// Records, now and then, that a session was used (for the user's list of sessions): at most every few
    /// minutes per session and node, off the request's path.
    private func noteUse(of sessionID: String) {
        let now = ServerClock.now()
        let due = lastNotedUse.withLock { noted -> Bool in
            if let last = noted[sessionID], now - last < Self.useNotingInterval { return false }
            if noted.count >= 100_000 { noted.removeAll(keepingCapacity: true) }
            noted[sessionID] = now
            return true
        }
        guard due else { return }
        let store = store
        Task { try? await store.touchSession(id: sessionID, at: now) }
    }

    private func user(ofToken token: String, containerID: String) async throws -> (user: String, sessionID: String) {
        let now = ServerClock.now()
        // The cache key is the whole token, whose signature covers the container: a hit is this container's.
        let cacheKey = containerID + "|" + token
        if let hit = sessions.entry(ofToken: cacheKey, now: now) { return (hit.userRecordName, hit.sessionID) }
        guard let claims = tokens.verify(token, containerID: containerID, now: now) else {
            throw APIError(.authenticationFailed, "ckWebAuthToken is not valid or has expired; sign in again")
        }
        let readAt = sessions.generation
        guard let session = try await store.session(id: claims.sessionID), session.containerID == containerID,
            session.userRecordName == claims.userRecordName
        else {
            throw APIError(.authenticationFailed, "ckWebAuthToken was signed out; sign in again")
        }
        sessions.remember(
            token: cacheKey, sessionID: session.id, userRecordName: session.userRecordName, expiresAt: claims.expiresAt, readAt: readAt
        )
        return (session.userRecordName, session.id)
    }

    /// The custom roles of a user in a container environment, from memory or storage.
    func roles(of user: String, containerID: String, environment: StratusModel.Environment) async throws -> Set<String> {
        try await roleCache.value(for: Self.roleKey(user, containerID, environment)) {
            try await store.roles(containerID: containerID, environment: environment, userRecordName: user)
        } ?? []
    }

    private static func roleKey(_ user: String, _ containerID: String, _ environment: StratusModel.Environment) -> String {
        "\(containerID)|\(environment.rawValue)|\(user)"
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
    /// - Parameter deviceName: what the user calls the device, for their list of sessions (trimmed to 100 characters).
    func startSession(for account: Account, deviceName: String? = nil) async throws -> String {
        let now = ServerClock.now()
        let device = deviceName.map { String($0.trimmingCharacters(in: .whitespacesAndNewlines).prefix(100)) }.flatMap { $0.isEmpty ? nil : $0 }
        let session = Session(
            id: Tokens.randomHex(bytes: 16), containerID: account.containerID, userRecordName: account.userRecordName,
            createdAt: now, expiresAt: now + sessionLifetime, deviceName: device
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
        guard let claims = tokens.verify(token, containerID: containerID, now: ServerClock.now()) else {
            throw APIError(.authenticationFailed, "ckWebAuthToken is not valid or has expired")
        }
        try await store.deleteSession(id: claims.sessionID)
    }
}
