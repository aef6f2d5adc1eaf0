import Foundation
import StratusKit

/// Where the CloudKit API finds its server: what `CKContainer.default()` and `CKContainer(identifier:)` connect
/// to, since code written for CloudKit names no server. Read, first found wins, from the one call an app makes at
/// launch (``configure(_:)``), the environment (`STRATUS_URL`, `STRATUS_API_TOKEN`, `STRATUS_CONTAINER`,
/// `STRATUS_ENVIRONMENT`, `STRATUS_WEB_AUTH_TOKEN`), or a `Stratus.json` file the app bundles:
///
/// ```json
/// { "url": "https://stratus.example.com", "container": "iCloud.com.example.Notes",
///   "apiTokens": { "iCloud.com.example.Notes": "…" }, "environment": "production" }
/// ```
public struct StratusCloudKitConfiguration: Sendable, Hashable, Codable {
    /// The server's address.
    public var url: URL
    /// The container `CKContainer.default()` opens.
    public var container: String
    /// Each container's API token, by identifier.
    public var apiTokens: [String: String]
    /// `development` (the default) or `production`.
    public var environment: String?
    /// A signed-in user's session given from outside (tests, tools); otherwise the session StratusKit's sign-in
    /// made is kept and used (``CKContainer/stratusContainer``).
    public var webAuthToken: String?

    public init(url: URL, container: String, apiToken: String, environment: String? = nil, webAuthToken: String? = nil) {
        self.url = url
        self.container = container
        self.apiTokens = [container: apiToken]
        self.environment = environment
        self.webAuthToken = webAuthToken
    }

    /// Sets the configuration for the whole process, before the first `CKContainer` is made.
    public static func configure(_ configuration: StratusCloudKitConfiguration) {
        configured.withLock { $0 = configuration }
    }

    /// The configuration in effect: the one set at launch, else the environment's, else the bundled file's.
    public static var current: StratusCloudKitConfiguration? {
        configured.withLock { $0 } ?? discovered
    }

    private static let configured = Locked<StratusCloudKitConfiguration?>(nil)
    /// The environment's configuration, else the bundled file's, read once (`CKContainer.default()` is called often).
    private static let discovered = fromEnvironment(ProcessInfo.processInfo.environment) ?? bundled()

    static func fromEnvironment(_ environment: [String: String]) -> StratusCloudKitConfiguration? {
        guard let address = environment["STRATUS_URL"], let url = URL(string: address),
            let container = environment["STRATUS_CONTAINER"], let token = environment["STRATUS_API_TOKEN"]
        else { return nil }
        return StratusCloudKitConfiguration(
            url: url, container: container, apiToken: token, environment: environment["STRATUS_ENVIRONMENT"],
            webAuthToken: environment["STRATUS_WEB_AUTH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        )
    }

    private static func bundled() -> StratusCloudKitConfiguration? {
        guard let file = Bundle.main.url(forResource: "Stratus", withExtension: "json"),
            let data = try? Data(contentsOf: file)
        else { return nil }
        return try? JSONDecoder().decode(StratusCloudKitConfiguration.self, from: data)
    }

    var stratusEnvironment: Container.Environment {
        environment == "production" ? .production : .development
    }
}
