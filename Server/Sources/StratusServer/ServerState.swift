import Crypto
import StratusServices
import StratusStore

/// What every route shares: configuration, storage and the authentication state.
struct ServerState: Sendable {
    let configuration: ServerConfiguration
    let store: any Store
    let authenticator: Authenticator
    let serverKeys: ServerKeyVerifier
    let passwordHasher: PasswordHasher
    let signInThrottle: SignInThrottle
    let blobs: any BlobStore
    let notifier: SubscriptionNotifier
    let assetURLs: AssetURLs
    let consoleSessions: ConsoleSessions
    let activity: ActivityLog
    let metrics: ServerMetrics
    /// A hash of a random password at the configured cost, checked against when an address has no account.
    let decoyPasswordHash: String
    /// Codes and mail for account flows.
    let mailer: AccountMailer
    let mailThrottle: MailThrottle
    let secondFactors: SecondFactors
    /// Checks sign-in providers' identity tokens against their published keys.
    let idTokens: IDTokenVerifier
    /// OpenID Connect providers' discovery documents.
    let openID: OpenIDDiscovery
    /// Containers' secrets, sealed with the operator's secrets key.
    let secrets: ContainerSecrets
    /// The hosted page's sign-ins at OpenID Connect providers, between leaving and coming back.
    let webFlows: WebFlowStates
    /// Sign in with Apple's token endpoints.
    let appleTokens: AppleTokens
    /// Containers' functions, and the runner of their WebAssembly modules.
    let functions: FunctionCatalog
    /// Every container's quotas, storage and rates.
    let quotas: QuotaBook
    let storageQuotas: StorageQuotas
    /// Every record write's pipeline: limits, quota, `beforeSave`, the store.
    let recordWrites: RecordWrites
    let throttle: RequestThrottle
    /// Per-minute figures and the request log, written to the store for the console.
    let telemetry: TelemetryRecorder
    /// Backups to a bucket, when this process makes them.
    let backups: (any BackupCatalog)?
}
