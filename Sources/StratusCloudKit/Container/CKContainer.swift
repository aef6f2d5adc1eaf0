import Foundation
import StratusKit

/// Whether the device has a signed-in user CloudKit calls can act for.
public enum CKAccountStatus: Int, Sendable {
    case couldNotDetermine = 0
    case available = 1
    case restricted = 2
    case noAccount = 3
    case temporarilyUnavailable = 4
}

extension Notification.Name {
    /// Posted when the signed-in user changes (a sign-in, a sign-out, a session the server ended).
    public static let CKAccountChanged = Notification.Name("CKAccountChanged")
}

/// An app's container on the Stratus server ``StratusCloudKitConfiguration`` names: its three databases and the
/// signed-in user.
open class CKContainer: NSObject, @unchecked Sendable {
    /// The StratusKit container under this one: sign users in with it (`signIn(email:password:)`, Sign in with
    /// Apple, passkeys…); its session is kept for the next launch.
    public let stratusContainer: Container

    public var containerIdentifier: String? { stratusContainer.identifier }

    private static let made = Locked<[String: CKContainer]>([:])

    /// The container named by the configuration's `container`. Stops the app when no configuration names a
    /// server, as CloudKit does for a container the app is not entitled to.
    open class func `default`() -> CKContainer {
        guard let configuration = StratusCloudKitConfiguration.current else {
            preconditionFailure("StratusCloudKit: no server configured: set STRATUS_URL, STRATUS_API_TOKEN and STRATUS_CONTAINER, bundle Stratus.json, or call StratusCloudKitConfiguration.configure(_:) at launch")
        }
        return CKContainer(identifier: configuration.container)
    }

    /// The container with this identifier on the configured server (one instance per identifier).
    public convenience init(identifier containerIdentifier: String) {
        guard let configuration = StratusCloudKitConfiguration.current, let token = configuration.apiTokens[containerIdentifier] else {
            preconditionFailure("StratusCloudKit: no server or API token configured for container \(containerIdentifier)")
        }
        let existing = Self.made.withLock { $0[containerIdentifier] }
        let container = existing?.stratusContainer ?? Container(
            identifier: containerIdentifier, serverURL: configuration.url, apiToken: token,
            environment: configuration.stratusEnvironment,
            webAuthToken: configuration.webAuthToken ?? SessionFile.read(containerIdentifier, configuration.stratusEnvironment)
        )
        self.init(container, keepsSession: configuration.webAuthToken == nil)
        if existing == nil { Self.made.withLock { $0[containerIdentifier] = self } }
    }

    /// A container over a StratusKit container the app made itself (the app keeps its session).
    public convenience init(_ container: Container) {
        self.init(container, keepsSession: false)
    }

    init(_ container: Container, keepsSession: Bool) {
        stratusContainer = container
        self.keepsSession = keepsSession
        lastToken = Locked(container.webAuthToken)
    }

    public var privateCloudDatabase: CKDatabase { CKDatabase(self, .private) }
    public var publicCloudDatabase: CKDatabase { CKDatabase(self, .public) }
    public var sharedCloudDatabase: CKDatabase { CKDatabase(self, .shared) }

    public func database(with databaseScope: CKDatabase.Scope) -> CKDatabase {
        CKDatabase(self, databaseScope)
    }

    // MARK: - The user

    /// `.available` with a signed-in user whose session the server accepts, `.noAccount` without one.
    public func accountStatus() async throws -> CKAccountStatus {
        guard stratusContainer.isSignedIn else { return .noAccount }
        do {
            _ = try await stratusContainer.userRecordID()
            sessionMayHaveChanged()
            return .available
        } catch let error as StratusError where error.code == .notAuthenticated {
            sessionMayHaveChanged()
            return .noAccount
        } catch {
            throw CKError.from(error)
        }
    }

    public func accountStatus(completionHandler: @escaping @Sendable (CKAccountStatus, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await accountStatus(), nil) } catch { completionHandler(.couldNotDetermine, error) }
        }
    }

    /// The signed-in user's record ID in this container.
    public func userRecordID() async throws -> CKRecord.ID {
        try await call { CKRecord.ID(try await self.stratusContainer.userRecordID()) }
    }

    public func fetchUserRecordID(completionHandler: @escaping @Sendable (CKRecord.ID?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await userRecordID(), nil) } catch { completionHandler(nil, error) }
        }
    }

    // MARK: - Calls

    private let lastToken: Locked<String?>
    /// Whether the session is kept in a file for the next launch (not when it was given from outside).
    private let keepsSession: Bool

    /// Runs a StratusKit call, reporting its errors as CloudKit's and keeping the session it leaves.
    func call<T>(_ body: () async throws -> T) async throws -> T {
        defer { sessionMayHaveChanged() }
        do {
            return try await body()
        } catch {
            throw CKError.from(error)
        }
    }

    /// Keeps the session for the next launch when it changed (the server rotates it; a sign-in or sign-out sets
    /// it), and posts `.CKAccountChanged` when the user did.
    private func sessionMayHaveChanged() {
        let token = stratusContainer.webAuthToken
        let changed: Bool = lastToken.withLock { last in
            defer { last = token }
            return last != token
        }
        guard changed else { return }
        if keepsSession { SessionFile.write(token, stratusContainer.identifier, stratusContainer.environment) }
        NotificationCenter.default.post(name: .CKAccountChanged, object: self)
    }
}

/// Where a container's session is kept between launches: a file in the app's support folder, readable by the
/// user alone.
enum SessionFile {
    static func url(_ container: String, _ environment: Container.Environment) -> URL? {
        guard let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first else { return nil }
        return support.appendingPathComponent("Stratus", isDirectory: true).appendingPathComponent("\(container).\(environment.rawValue).session")
    }

    static func read(_ container: String, _ environment: Container.Environment) -> String? {
        guard let url = url(container, environment), let data = try? Data(contentsOf: url) else { return nil }
        let token = String(decoding: data, as: UTF8.self)
        return token.isEmpty ? nil : token
    }

    static func write(_ token: String?, _ container: String, _ environment: Container.Environment) {
        guard let url = url(container, environment) else { return }
        guard let token else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? Data(token.utf8).write(to: url, options: .atomic)
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
    }
}
