/// How a Stratus server behaves. Every value has a default suited to running on one machine.
public struct ServerConfiguration: Sendable {
    /// The interface to listen on. Default `127.0.0.1`.
    public var host: String
    /// The port to listen on; 0 picks a free one. Default 8080.
    public var port: Int
    /// The key of the admin API (`Authorization: Bearer <key>`).
    public var adminKey: String
    /// The largest request body accepted, in bytes. Default 16 MiB.
    public var maximumRequestBytes: Int
    /// PBKDF2 rounds for new password hashes. Default 210,000.
    public var passwordHashRounds: Int
    /// How long a web auth token stays valid, in seconds. Default two weeks.
    public var sessionLifetime: Int
    /// The URL clients reach this server at, used in `redirectURL`s; by default taken from each request's `Host`.
    public var publicURL: String?
    /// Whether to log one line per request. Default `true`.
    public var logRequests: Bool
    /// The largest asset file accepted, in bytes. Default 50 MiB.
    public var maximumAssetBytes: Int64
    /// How long an upload URL, and then the receipt of its upload, stay valid, in seconds. Default 15 minutes.
    public var assetUploadLifetime: Int
    /// How long a download URL stays valid, in seconds. Default one hour.
    public var assetDownloadLifetime: Int
    /// Seconds between sweeps that delete asset files no record holds. Default 60.
    public var assetSweepInterval: Double
    /// How long a courier queue (`tokens/create`) and the notifications it delivers are kept, in seconds. Default 12 hours.
    public var notificationQueueLifetime: Int
    /// How long a courier long poll waits for a notification before answering empty, in seconds. Default 30.
    public var courierWait: Double
    /// Apple's push service, for devices registered with `tokens/register`; `nil` to send nothing through it.
    public var apns: APNsConfiguration?
    /// Whether the client address is taken from `X-Forwarded-For` (set it behind a proxy that writes that
    /// header, and only then): sign-in throttles count failures per client address. Default `false`.
    public var trustForwardedFor: Bool
    /// Seconds an address waits after five wrong passwords for one account (or thirty across accounts); each
    /// further failure doubles the wait, up to 15 minutes. Default 5.
    public var signInPause: Int = 5
    /// Deadlines for request heads and bodies, and the cap on connections per client address.
    public var connectionLimits: ConnectionLimits
    /// This server process's name among the nodes sharing a database: in `/readyz`, `/metrics` and the console's
    /// Activity page. Default `stratus`; `stratus serve` makes it the host name and port.
    public var nodeName = "stratus"

    public init(
        host: String = "127.0.0.1", port: Int = 8080, adminKey: String, maximumRequestBytes: Int = 16 * 1024 * 1024,
        passwordHashRounds: Int = 210_000, sessionLifetime: Int = 14 * 24 * 3600, publicURL: String? = nil,
        logRequests: Bool = true, maximumAssetBytes: Int64 = 50 * 1024 * 1024, assetUploadLifetime: Int = 15 * 60,
        assetDownloadLifetime: Int = 3600, assetSweepInterval: Double = 60, notificationQueueLifetime: Int = 12 * 3600,
        courierWait: Double = 30, apns: APNsConfiguration? = nil, trustForwardedFor: Bool = false,
        connectionLimits: ConnectionLimits = ConnectionLimits()
    ) {
        self.host = host
        self.port = port
        self.adminKey = adminKey
        self.maximumRequestBytes = maximumRequestBytes
        self.passwordHashRounds = passwordHashRounds
        self.sessionLifetime = sessionLifetime
        self.publicURL = publicURL
        self.logRequests = logRequests
        self.maximumAssetBytes = maximumAssetBytes
        self.assetUploadLifetime = assetUploadLifetime
        self.assetDownloadLifetime = assetDownloadLifetime
        self.assetSweepInterval = assetSweepInterval
        self.notificationQueueLifetime = notificationQueueLifetime
        self.courierWait = courierWait
        self.apns = apns
        self.trustForwardedFor = trustForwardedFor
        self.connectionLimits = connectionLimits
    }
}
