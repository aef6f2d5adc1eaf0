/// How to reach Apple's push service with token-based authentication, as the operator configures it.
public struct APNsConfiguration: Sendable {
    /// The `.p8` signing key's PEM text.
    public var privateKeyPEM: String
    /// The key's 10-character id.
    public var keyID: String
    /// The developer team id.
    public var teamID: String
    /// The app's bundle id (`apns-topic`).
    public var topic: String
    /// Where devices registered for `production` are reached.
    public var productionHost: String
    /// Where devices registered for `development` are reached.
    public var sandboxHost: String
    /// Extra certificate authorities to trust (PEM), for a private push gateway or a test server.
    public var trustedCertificatesPEM: String?

    public init(
        privateKeyPEM: String, keyID: String, teamID: String, topic: String, productionHost: String = "api.push.apple.com",
        sandboxHost: String = "api.sandbox.push.apple.com", trustedCertificatesPEM: String? = nil
    ) {
        self.privateKeyPEM = privateKeyPEM
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.productionHost = productionHost
        self.sandboxHost = sandboxHost
        self.trustedCertificatesPEM = trustedCertificatesPEM
    }
}
