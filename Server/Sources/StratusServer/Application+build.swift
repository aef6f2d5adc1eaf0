import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import StratusConsole
import StratusModel
import ServiceLifecycle
import StratusServices
import StratusStore

/// Builds the Stratus HTTP application over a store.
///
/// ```swift
/// let store = try SQLiteStore(configuration: .init(path: "stratus-data/stratus.sqlite"))
/// let blobs = try FolderBlobStore(root: URL(fileURLWithPath: "stratus-data/assets"))
/// let app = try await buildApplication(configuration: ServerConfiguration(adminKey: key), store: store, blobs: blobs, logger: logger)
/// try await app.runService()
/// ```
/// - Parameters:
///   - blobs: where asset files are kept.
///   - services: long-lived parts to run beside the server, such as the store's background work. The server's
///     own (``StratusServerParts/services``) are added to them. On SIGTERM the service group stops them in
///     reverse order: the server first (answering what it has begun), the store last.
public func buildApplication(
    configuration: ServerConfiguration, store: some Store, blobs: any BlobStore, services: [any Service] = [], backups: (any BackupCatalog)? = nil,
    logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let parts = try await buildServer(configuration: configuration, store: store, blobs: blobs, backups: backups, logger: logger)
    let limits = configuration.connectionLimits
    let connections = ConnectionCounter()
    // The parser's own limits sit above `RequestSizeMiddleware`'s, which answer first and more precisely.
    let http1 = HTTP1Channel.Configuration(
        additionalChannelHandlers: [ConnectionGuard(limits: limits, connections: connections)],
        httpDecoderConfiguration: .init(
            maxHeaderFieldSize: RequestLimits.parserHeaderFieldBytes, maxHeaderListSize: RequestLimits.parserHeaderListBytes,
            maxHeaderFieldCount: RequestLimits.parserHeaderFields
        )
    )
    return Application(
        router: parts.router,
        // The largest body a route takes: an asset file in a form, or a request's JSON.
        server: .guardedHTTP1(
            configuration: http1,
            maximumBodyBytes: max(Int64(configuration.maximumRequestBytes), configuration.maximumAssetBytes + AssetTransfer.maximumFormOverhead)
        ),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Stratus"),
        services: services + parts.services,
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger
    )
}

/// The Stratus server in parts: the router of every endpoint, and the services that must run beside it.
public struct StratusServerParts {
    public let router: Router<StratusRequestContext>
    /// The blob store (when it is a service, as S3's is), the collector of unreferenced assets, the sweeper of
    /// expired notifications, the push sender (when configured) and the subscription notifier, in the order
    /// they start; they stop in reverse.
    public let services: [any Service]
}

/// Builds the server's router and its services; tests run them in process (an `Application` with both).
/// - Parameter backups: the backups this process makes to a bucket, which the admin API lists and starts.
public func buildServer(
    configuration: ServerConfiguration, store: some Store, blobs: any BlobStore, backups: (any BackupCatalog)? = nil,
    logger: Logger = Logger(label: "stratus")
) async throws -> StratusServerParts {
    let (router, state) = try await buildRouterAndState(configuration: configuration, store: store, blobs: blobs, backups: backups)
    let collector = AssetCollector(store: store, blobs: blobs, configuration: configuration, logger: logger)
    let sweeper = NotificationSweeper(store: store, configuration: configuration, logger: logger)
    let mail = try MailSender(store: store, configuration: configuration, logger: Logger(label: "stratus.mail"))
    let deleter = AccountDeleter(store: store, configuration: configuration, logger: Logger(label: "stratus.accounts"))
    let revoker = ProviderRevoker(store: store, tokens: state.appleTokens, configuration: configuration, logger: Logger(label: "stratus.accounts"))
    let webhooks = WebhookSender(
        store: store, configuration: configuration, logger: Logger(label: "stratus.webhooks"), functions: BackgroundCalls(server: state)
    )
    let jobs = JobScheduler(store: store, configuration: configuration, functions: BackgroundCalls(server: state), logger: Logger(label: "stratus.jobs"))
    let meter = StorageMeter(store: store, configuration: configuration, logger: Logger(label: "stratus.quotas"))
    let services: [(any Service)?] = [
        blobs as? any Service, collector, sweeper, state.notifier.pushSender, state.notifier, mail, deleter, revoker, webhooks, jobs,
        state.throttle.rates, meter, state.telemetry,
    ]
    return StratusServerParts(router: router, services: services.compactMap { $0 })
}

/// The router and the state its routes share.
private func buildRouterAndState(
    configuration: ServerConfiguration, store: some Store, blobs: any BlobStore, backups: (any BackupCatalog)?
) async throws -> (router: Router<StratusRequestContext>, state: ServerState) {
    let signingKey = try await store.secret(named: "web-auth-token-key") {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }
    let assetURLKey = try await store.secret(named: "asset-url-key") {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }
    let accountCodeKey = try await store.secret(named: "account-code-key") {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }
    let secondFactorKey = try await store.secret(named: "second-factor-key") {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }
    let webFlowKey = try await store.secret(named: "provider-state-key") {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
    }
    let hasher = PasswordHasher(rounds: configuration.passwordHashRounds)
    let metrics = ServerMetrics(node: configuration.nodeName)
    let quotas = QuotaBook(store: store)
    let rates = RequestRates(
        store: store, syncInterval: .milliseconds(Int64(max(0.05, configuration.requestCountSyncInterval) * 1000)),
        logger: Logger(label: "stratus.quotas")
    )
    let pushSender = try configuration.apns.map {
        try APNsSender(configuration: $0, store: store, metrics: metrics, logger: Logger(label: "stratus.apns"))
    }
    let authenticator = Authenticator(store: store, signingKey: signingKey, sessionLifetime: configuration.sessionLifetime)
    let telemetry = TelemetryRecorder(store: store, configuration: configuration, logger: Logger(label: "stratus.telemetry")) { containerID in
        (try? await authenticator.container(containerID)) != nil
    }
    let adminKeys = AdminKeys(
        store: store, startedWith: configuration.adminKey, keyFile: configuration.adminKeyFile, sealer: configuration.secretsKeys,
        logger: Logger(label: "stratus.admin")
    )
    await adminKeys.followInKeyFile()
    let notifier = SubscriptionNotifier(store: store, pushSender: pushSender, metrics: metrics, telemetry: telemetry)
    let storageQuotas = StorageQuotas(store: store, book: quotas)
    let state = ServerState(
        configuration: configuration, store: store,
        authenticator: authenticator,
        serverKeys: ServerKeyVerifier(store: store),
        passwordHasher: hasher, signInThrottle: SignInThrottle(store: store, firstPause: Int64(max(1, configuration.signInPause)) * 1000),
        blobs: blobs, notifier: notifier, assetURLs: AssetURLs(key: assetURLKey),
        consoleSessions: ConsoleSessions(
            store: store, adminKeys: adminKeys, csrfKey: signingKey,
            secureCookies: configuration.publicURL?.hasPrefix("https://") ?? false
        ),
        activity: ActivityLog(),
        metrics: metrics,
        decoyPasswordHash: try hasher.hash(Tokens.randomHex(bytes: 16)),
        mailer: AccountMailer(store: store, configuration: configuration, key: accountCodeKey),
        mailThrottle: MailThrottle(store: store),
        secondFactors: SecondFactors(key: secondFactorKey),
        idTokens: IDTokenVerifier(keys: ProviderKeys(
            client: .shared, minimumRefetch: .milliseconds(Int64(configuration.providerKeysMinimumRefetch * 1000))
        )),
        openID: OpenIDDiscovery(client: .shared),
        secrets: ContainerSecrets(store: store, keys: configuration.secretsKeys),
        webFlows: WebFlowStates(key: webFlowKey),
        appleTokens: AppleTokens(
            secrets: ContainerSecrets(store: store, keys: configuration.secretsKeys), keysURL: configuration.appleKeysURL, client: .shared
        ),
        functions: FunctionCatalog(
            store: store, concurrentCalls: configuration.functionConcurrency, logger: Logger(label: "stratus.functions")
        ),
        quotas: quotas, storageQuotas: storageQuotas, recordWrites: RecordWrites(store: store, quotas: storageQuotas),
        throttle: RequestThrottle(book: quotas, rates: rates),
        telemetry: telemetry, backups: backups
    )

    let router = Router(context: StratusRequestContext.self)
    if configuration.tracesRequests {
        router.add(middleware: RequestSpanMiddleware())
    }
    router.add(middleware: ActivityMiddleware(server: state))
    if configuration.logRequests {
        router.add(middleware: RequestLogMiddleware())
    }
    router.add(middleware: CORSMiddleware(
        allowOrigin: .originBased,
        allowHeaders: [.accept, .authorization, .contentType, .origin, .range, .cloudKitKeyID, .cloudKitDate, .cloudKitSignature, .stratusDeviceID],
        allowMethods: [.get, .post, .put, .delete, .options],
        exposedHeaders: ["X-Apple-Request-UUID", "X-Apple-CloudKit-Web-Auth-Token", "Content-Range", "Content-Length", "Accept-Ranges"]
    ))
    router.add(middleware: CloudKitErrorMiddleware())
    router.add(middleware: RequestSizeMiddleware())
    router.add(middleware: AddressRateMiddleware(server: state))
    router.add(middleware: AuditMiddleware(server: state))

    HealthController(server: state).register(on: router)
    AdminController(server: state).register(on: router)
    ConsoleController(files: try ConsoleFiles.load(), imageSources: configuration.publicURL ?? "").register(on: router)
    AccountsController(server: state).register(on: router)
    AccountLinksController(server: state).register(on: router)
    let signInPage = SignInPage(server: state, accounts: AccountsController(server: state))
    signInPage.register(on: router)
    ProviderSignIn(server: state, page: signInPage).register(on: router)
    AssociatedDomains(server: state).register(on: router)
    AppleNotificationsController(server: state).register(on: router)
    AssetTransfer(server: state).register(on: router)
    CourierController(server: state).register(on: router)
    // Both hosts of the push-token calls: the reference's path without a database segment, and `/device/1`.
    TokensController(server: state).register(on: router.group("device/1/:container/:environment"))
    TokensController(server: state).register(on: router.group("database/1/:container/:environment"))
    let database = router.group("database/1/:container/:environment/:database")
    RecordsController(server: state).register(on: database)
    ZonesController(server: state).register(on: database)
    ChangesController(server: state).register(on: database)
    UsersController(server: state).register(on: database)
    AssetsController(server: state).register(on: database)
    SubscriptionsController(server: state).register(on: database)
    SharesController(server: state).register(on: database)
    SharesController(server: state).registerLinks(on: router)
    TokensController(server: state).register(on: database)
    FunctionsController(server: state).register(on: router)
    return (router, state)
}
