import Foundation
import StratusMail

/// How a Stratus server behaves. Every value starts at its default, suited to running on one machine; these
/// defaults are the ones `stratus serve` documents and uses (docs/configuration.md).
public struct ServerConfiguration: Sendable {
    /// The interface to listen on.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one.
    public var port = 8080
    /// The key of the admin API (`Authorization: Bearer <key>`) the node starts with; once an operator rotates it or
    /// turns it off, the stored one is obeyed instead (``AdminKeys``). An empty key admits no one.
    public var adminKey: String
    /// The file the node keeps `adminKey` in (`stratus serve`'s data folder's `admin.key`), which a rotation
    /// rewrites; `nil` when the key was given otherwise.
    public var adminKeyFile: String?
    /// The largest request body accepted, in bytes.
    public var maximumRequestBytes = 16 * 1024 * 1024
    /// PBKDF2 rounds for new password hashes.
    public var passwordHashRounds = 210_000
    /// How long a web auth token stays valid, in seconds: two weeks.
    public var sessionLifetime = 14 * 24 * 3600
    /// The URL clients reach this server at, used in `redirectURL`s; by default taken from each request's `Host`.
    public var publicURL: String?
    /// Whether to log one line per request.
    public var logRequests = true
    /// The largest asset file accepted, in bytes.
    public var maximumAssetBytes: Int64 = 50 * 1024 * 1024
    /// How long an upload URL, and then the receipt of its upload, stay valid, in seconds.
    public var assetUploadLifetime = 15 * 60
    /// How long a download URL stays valid, in seconds.
    public var assetDownloadLifetime = 3600
    /// Seconds between sweeps that delete asset files no record holds.
    public var assetSweepInterval: Double = 60
    /// How long a courier queue (`tokens/create`) and the notifications it delivers are kept, in seconds.
    public var notificationQueueLifetime = 12 * 3600
    /// How long a courier long poll waits for a notification before answering empty, in seconds.
    public var courierWait: Double = 30
    /// Apple's push service, for devices registered with `tokens/register`; `nil` to send nothing through it.
    public var apns: APNsConfiguration?
    /// Whether the client address is taken from `X-Forwarded-For` (set it behind a proxy that writes that
    /// header, and only then): sign-in throttles count failures per client address.
    public var trustForwardedFor = false
    /// Seconds an address waits after five wrong passwords for one account (or thirty across accounts); each
    /// further failure doubles the wait, up to 15 minutes.
    public var signInPause = 5
    /// Deadlines for request heads and bodies, and the cap on connections per client address.
    public var connectionLimits = ConnectionLimits()
    /// The SMTP server that sends account mail (verification, reset, sign-in codes); `nil` keeps mail queued.
    public var smtp: SMTPSettings?
    /// The address mail comes from when a container sets none; `no-reply@` the public host when unset.
    public var mailFrom: String?
    /// Seconds before each retry of a message the SMTP server did not take (refused for now, or down); after the
    /// last, the message is given up on. From half a minute to half a day: about a day in all.
    public var mailRetryDelays: [Int64] = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600]
    /// Seconds between looks for account deletions a crash interrupted, which are then finished.
    public var accountDeletionSweepInterval: Double = 60
    /// Whether webhooks may go to loopback, private and link-local addresses (refused by default).
    public var webhooksAllowPrivate = false
    /// Seconds one webhook attempt may take, answer included.
    public var webhookTimeout: Double = 10
    /// How often, in seconds, each node looks for scheduled jobs that fell due.
    public var jobPollInterval: Double = 1
    /// Seconds between measurements of every database's storage, which storage quotas are held to.
    public var usageInterval: Double = 60
    /// How often, in seconds, each node shares its request counts with the others (rates hold across nodes to
    /// within one interval).
    public var requestCountSyncInterval: Double = 1
    /// How often, in seconds, each node writes its telemetry and request log to the store.
    public var telemetryFlushInterval: Double = 5
    /// Days the request log keeps each request; `0` keeps no log (per-minute figures are kept 30 days regardless).
    public var requestLogDays = 7
    /// Whether each request starts a span of a trace, with the store's spans as its children: set when the process
    /// exports traces (``TraceExport``, `--otlp-endpoint`). Off, requests pay nothing for tracing.
    public var tracesRequests = false
    /// How many function calls run at once on this node (each on a thread of its own); more wait their turn.
    public var functionConcurrency = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)
    /// Seconds before each retry of a webhook delivery, the last repeated: from seconds to a day.
    public var webhookRetryDelays: [Double] = [5, 30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600]
    /// Seconds an endpoint may fail every delivery before it is turned off: three days.
    public var webhookDisableAfter: Double = 3 * 86_400
    /// Seconds a delivered webhook event stays listed (and can be replayed): 30 days.
    public var webhookDeliveryRetention: Double = 30 * 86_400
    /// The longest wait, in seconds, between looks at the webhook queue (retries falling due, another node's lease lapsing).
    public var webhookPollInterval: Double = 1
    /// Seconds between looks for provider tokens to revoke (deleted accounts' Sign in with Apple tokens).
    public var revocationSweepInterval: Double = 30
    /// Seconds before each retry of a revocation Apple did not take, the last repeated: from half a minute to a day.
    public var revocationRetryDelays: [Double] = [30, 120, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 24 * 3600]
    /// Attempts at one revocation before it is given up on (and logged as an error): about three weeks.
    public var revocationAttempts = 30
    /// Where Sign in with Apple's signing keys are published (a JSON Web Key Set); Apple's token and revocation
    /// endpoints are its siblings (`…/auth/token`, `…/auth/revoke`).
    public var appleKeysURL = "https://appleid.apple.com/auth/keys"
    /// The keys that seal containers' secrets and providers' refresh tokens (the first seals, all open); every node
    /// sharing a database needs the same ones.
    public var secretsKeys = SecretsKeyring(keys: [])
    /// Seconds before a provider's keys are fetched again for a key ID they lacked.
    public var providerKeysMinimumRefetch: Double = 10
    /// This server process's name among the nodes sharing a database: in `/readyz`, `/metrics` and the console's
    /// Activity page. `stratus serve` makes it the host name and port.
    public var nodeName = "stratus"

    /// The default configuration with this admin key.
    public init(adminKey: String) {
        self.adminKey = adminKey
    }
}
