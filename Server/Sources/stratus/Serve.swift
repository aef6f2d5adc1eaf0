import ArgumentParser
import Foundation
import Hummingbird
import Logging
import StratusBlobs
import ServiceLifecycle
import StratusPostgres
import StratusServer
import StratusSQLite
import StratusStore

/// `stratus serve`: runs the server on the embedded SQLite store, or on PostgreSQL with `--database`.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server.")

    @Option(help: "The interface to listen on (STRATUS_HOST).")
    var host: String?

    @Option(help: "The port to listen on; 0 picks a free one (STRATUS_PORT).")
    var port: Int?

    @Option(help: "The data folder (STRATUS_DATA).")
    var data: String?

    @Option(help: "A PostgreSQL database to keep records in: postgres://USER:PASSWORD@HOST:PORT/DBNAME[?sslmode=require] (STRATUS_DATABASE). Without it, SQLite in the data folder.")
    var database: String?

    @Option(help: "The most connections to PostgreSQL at once (STRATUS_DATABASE_POOL_SIZE). Default 10.")
    var databasePoolSize: Int?

    @Option(help: "The admin API key (STRATUS_ADMIN_KEY); generated and kept in the data folder when not given.")
    var adminKey: String?

    @Option(help: "When commits reach the disk: 'process' survives a killed process, 'full' also power loss (STRATUS_SYNC).")
    var sync: String?

    @Option(help: "The URL clients reach this server at, used in redirect URLs (STRATUS_PUBLIC_URL).")
    var publicURL: String?

    @Option(help: "This node's name among servers sharing a database, in /readyz, /metrics and the console (STRATUS_NODE_NAME). Default: host name and port.")
    var nodeName: String?

    @Option(help: "PBKDF2 rounds for new password hashes (STRATUS_PASSWORD_ROUNDS).")
    var passwordRounds: Int?

    @Option(help: "Seconds an address waits after five wrong passwords for an account, doubling with each further one (STRATUS_SIGN_IN_PAUSE). Default 5.")
    var signInPause: Int?

    @Flag(help: "Do not log one line per request.")
    var quiet = false

    @OptionGroup var assets: AssetOptions

    @Option(help: "Seconds a courier queue and its notifications are kept (STRATUS_NOTIFICATION_TTL). Default 43200.")
    var notificationTTL: Int?

    @Option(help: "Seconds a courier long poll waits before answering empty (STRATUS_COURIER_WAIT). Default 30.")
    var courierWait: Double?

    @OptionGroup var push: PushOptions

    @OptionGroup var connections: ConnectionOptions

    func run() async throws {
        LoggingSystem.bootstrap { label in BufferedLogHandler(label: label) }
        defer { LogSink.standardError.flush() }
        let logger = Logger(label: "stratus")

        let folder = DataFolder(path: data ?? environmentValue("STRATUS_DATA") ?? "./stratus-data")
        let syncName = sync ?? environmentValue("STRATUS_SYNC") ?? "process"
        guard let durability = SQLiteStore.Configuration.Durability(rawValue: syncName) else {
            throw ValidationError("--sync must be 'process' or 'full'")
        }
        let store = try await openStore(folder: folder, durability: durability, logger: logger)
        var key = adminKey ?? environmentValue("STRATUS_ADMIN_KEY")
        if key == nil {
            let stored = try folder.adminKey()
            key = stored.key
            if stored.generated {
                // Written unbuffered, so it shows at once when output goes to a file or a pipe.
                FileHandle.standardOutput.write(Data("Generated an admin key (kept in \(folder.adminKeyPath)); it is shown only this once:\n  \(stored.key)\n".utf8))
            }
        }
        var configuration = ServerConfiguration(
            host: host ?? environmentValue("STRATUS_HOST") ?? "127.0.0.1",
            port: port ?? environmentValue("STRATUS_PORT").flatMap(Int.init) ?? 8080,
            adminKey: key!,
            passwordHashRounds: passwordRounds ?? environmentValue("STRATUS_PASSWORD_ROUNDS").flatMap(Int.init) ?? 210_000,
            publicURL: publicURL ?? environmentValue("STRATUS_PUBLIC_URL"),
            logRequests: !quiet,
            maximumAssetBytes: try assets.maximumAssetBytes(),
            assetUploadLifetime: assets.uploadURLLifetime ?? environmentValue("STRATUS_UPLOAD_URL_LIFETIME").flatMap(Int.init) ?? 900,
            assetDownloadLifetime: assets.downloadURLLifetime ?? environmentValue("STRATUS_DOWNLOAD_URL_LIFETIME").flatMap(Int.init) ?? 3600,
            assetSweepInterval: assets.assetSweepInterval ?? environmentValue("STRATUS_ASSET_SWEEP_INTERVAL").flatMap(Double.init) ?? 60,
            notificationQueueLifetime: notificationTTL ?? environmentValue("STRATUS_NOTIFICATION_TTL").flatMap(Int.init) ?? 43_200,
            courierWait: courierWait ?? environmentValue("STRATUS_COURIER_WAIT").flatMap(Double.init) ?? 30,
            apns: try push.configuration(),
            trustForwardedFor: connections.trustForwardedFor || environmentValue("STRATUS_TRUST_FORWARDED_FOR") == "1",
            connectionLimits: try connections.limits()
        )
        configuration.nodeName = nodeName ?? environmentValue("STRATUS_NODE_NAME")
            ?? "\(ProcessInfo.processInfo.hostName):\(configuration.port == 0 ? "pid\(ProcessInfo.processInfo.processIdentifier)" : "\(configuration.port)")"
        configuration.signInPause = signInPause ?? environmentValue("STRATUS_SIGN_IN_PAUSE").flatMap(Int.init) ?? 5
        guard configuration.signInPause > 0 else { throw ValidationError("--sign-in-pause must be at least 1 second") }
        ConnectionOptions.raiseOpenFileLimit()
        let blobs = try await assets.openBlobStore(dataFolder: folder)
        let host = configuration.host
        let app = try await buildApplication(configuration: configuration, store: store, blobs: blobs, services: [store], logger: logger) { port in
            // The admin commands given this folder find the server through this note, and go through it.
            do { try RunningServer.record(host: host, port: port, in: folder) } catch {
                logger.warning("cannot note the running server in the data folder", metadata: ["stratus.error": "\(String(reflecting: error))"])
            }
            // Written unbuffered: scripts wait for this line to know the server is up.
            let records = (store as? PostgresStore)?.configuration.redactedDescription ?? folder.path
            FileHandle.standardOutput.write(Data("Stratus is listening on http://\(host):\(port) (data in \(records))\n".utf8))
        }
        defer { RunningServer.clear(in: folder) }
        try await app.runService()
    }

    /// The store `--database` names, or SQLite in the data folder.
    private func openStore(folder: DataFolder, durability: SQLiteStore.Configuration.Durability, logger: Logger) async throws -> any Store & Service {
        guard let url = database ?? environmentValue("STRATUS_DATABASE") else {
            return try folder.openStore(durability: durability, logger: logger)
        }
        let poolSize = databasePoolSize ?? environmentValue("STRATUS_DATABASE_POOL_SIZE").flatMap(Int.init) ?? 10
        return try await connectDatabase(url, option: "--database", poolSize: poolSize, logger: logger)
    }
}
