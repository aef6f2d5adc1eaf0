import StratusServices
import StratusServer

extension ServerConfiguration {
    /// The admin key of every test server.
    public static let testAdminKey = "test-admin-key"
    /// The secrets key of every test server (nodes of one test share it, as a cluster's must).
    public static let testSecretsKey = "c3RyYXR1cy10ZXN0LXNlY3JldHMta2V5LTMyLWJ5dGU="

    /// The configuration of every in-process test server, written once: the test admin key, cheap password
    /// hashing, no request log, a secrets key, and a sign-in pause long enough that a loaded machine's slow requests do not
    /// outlast it.
    public static func forTests() -> ServerConfiguration {
        var configuration = ServerConfiguration(adminKey: testAdminKey)
        configuration.maximumRequestBytes = 8 * 1024 * 1024
        configuration.passwordHashRounds = 1_000
        configuration.logRequests = false
        configuration.signInPause = 120
        configuration.secretsKeys = (try? SecretsKeyring(parsing: testSecretsKey)) ?? SecretsKeyring(keys: [])
        return configuration
    }
}
