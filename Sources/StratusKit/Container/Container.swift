import Foundation

/// One app's container on a Stratus server, in one environment (`CKContainer`).
///
/// ```swift
/// let container = Container(
///     identifier: "iCloud.com.example.Notes",
///     serverURL: URL(string: "https://stratus.example.com")!,
///     apiToken: "…the container's API token…"
/// )
/// try await container.signIn(email: "ann@example.com", password: "…")
/// let notes = try await container.privateCloudDatabase.records(matching: Query(recordType: "Note"))
/// ```
public final class Container: Sendable {
    /// The container's two environments; their data never mix.
    public enum Environment: String, Sendable, Hashable {
        case development, production
    }

    public let identifier: String
    public let serverURL: URL
    public let environment: Environment
    let apiToken: String
    let transport: any Transport
    let session: Locked<SessionState>

    /// The signed-in user, as far as this client knows.
    struct SessionState {
        var webAuthToken: String?
        var userRecordName: String?
    }

    /// - Parameters:
    ///   - webAuthToken: a token kept from an earlier sign-in (see ``webAuthToken``), to stay signed in.
    ///   - transport: how requests reach the server; `URLSession` by default.
    public init(
        identifier: String, serverURL: URL, apiToken: String, environment: Environment = .development,
        webAuthToken: String? = nil, transport: any Transport = URLSessionTransport()
    ) {
        self.identifier = identifier
        self.serverURL = serverURL
        self.apiToken = apiToken
        self.environment = environment
        self.transport = transport
        self.session = Locked(SessionState(webAuthToken: webAuthToken))
    }

    /// The app-wide database, readable by everyone the record types' roles allow.
    public var publicCloudDatabase: Database { Database(container: self, databaseScope: .public) }
    /// The signed-in user's own database.
    public var privateCloudDatabase: Database { Database(container: self, databaseScope: .private) }
    /// Other users' zones shared with the signed-in user.
    public var sharedCloudDatabase: Database { Database(container: self, databaseScope: .shared) }

    /// The signed-in user's web auth token, rotated by the server as it goes: keep it (in the Keychain) to stay
    /// signed in across launches.
    public var webAuthToken: String? { session.withLock { $0.webAuthToken } }

    /// Whether a user is signed in, as far as this client knows.
    public var isSignedIn: Bool { webAuthToken != nil }
}
