import StratusBlobs
import StratusPostgres
import StratusServer
import StratusSQLite

/// Every setting of `stratus serve`, with its default taken from the library that owns it, so that each default
/// is written once.
enum ServeSettings {
    private static let server = ServerConfiguration(adminKey: "")

    static let config = Setting("config", .text, "a JSON file of settings, keyed by their names (`{\"port\": 8080}`); flags and variables win over it")
    static let host = Setting("host", .text, default: server.host, "the interface to listen on")
    static let port = Setting("port", .integer, default: String(server.port), "the port to listen on; `0` picks a free one")
    static let data = Setting("data", .text, default: "./stratus-data", "the data folder: the SQLite file, the admin key, asset files")
    static let database = Setting(
        "database", .text, secret: true,
        "keep records in PostgreSQL instead of the data folder: `postgres://USER:PASSWORD@HOST:PORT/DBNAME[?sslmode=...]`"
    )
    static let databasePoolSize = Setting(
        "database-pool-size", .integer, default: String(PostgresStore.Configuration.defaultPoolSize),
        "connections to PostgreSQL for requests and background work"
    )
    static let adminKey = Setting("admin-key", .text, otherwise: "generated", secret: true, "the admin API key; generated and kept in the data folder when not given")
    static let sync = Setting(
        "sync", .text, default: SQLiteStore.Configuration(path: "").durability.rawValue,
        "when SQLite commits reach the disk: `process` survives a killed process, `full` also power loss"
    )
    static let publicURL = Setting("public-url", .text, otherwise: "from `Host`", "the URL clients reach the server at: in `redirectURL`s, and in upload, download, courier and share URLs")
    static let nodeName = Setting("node-name", .text, otherwise: "host name and port", "this node's name among servers sharing a database, in `/readyz`, `/metrics` and the console")
    static let passwordRounds = Setting("password-rounds", .integer, default: String(server.passwordHashRounds), "PBKDF2 rounds for new password hashes")
    static let signInPause = Setting(
        "sign-in-pause", .integer, default: String(server.signInPause),
        "seconds an address waits after 5 wrong passwords for an account (30 across accounts); doubles with each further one, up to 15 minutes"
    )
    static let quiet = Setting("quiet", .flag, default: "off", "no per-request log lines")
    static let maxAssetSize = Setting("max-asset-size", .size, default: Setting.sizeText(server.maximumAssetBytes), "the largest asset file accepted (`KB`, `MB`, `GB`)")
    static let uploadURLLifetime = Setting("upload-url-lifetime", .integer, default: String(server.assetUploadLifetime), "seconds an upload URL, then its receipt, stay valid")
    static let downloadURLLifetime = Setting("download-url-lifetime", .integer, default: String(server.assetDownloadLifetime), "seconds a download URL stays valid")
    static let usageInterval = Setting(
        "usage-interval", .number, default: String(Int(server.usageInterval)),
        "seconds between measurements of every database's storage, which storage quotas are held to"
    )
    static let requestLogDays = Setting(
        "request-log-days", .number, default: String(server.requestLogDays),
        "days the request log keeps each request to a container (0: no log; per-minute telemetry is kept 30 days)"
    )
    static let backupBucket = Setting(
        "backup-bucket", .text, otherwise: "no scheduled backups",
        "back the data folder (SQLite) up to this S3 bucket every --backup-interval: the database, its keys and the asset files; through the --s3 settings' service unless the --backup-s3 ones name another"
    )
    static let backupPrefix = Setting("backup-prefix", .text, default: "stratus-backups/", "a prefix for the backups' object keys in the bucket")
    static let backupInterval = Setting("backup-interval", .number, default: "21600", "seconds between scheduled backups (6 hours by default)")
    static let backupKeep = Setting("backup-keep", .integer, default: "14", "backups kept in the bucket; older ones are deleted after each new one")
    static let backupS3Endpoint = Setting("backup-s3-endpoint", .text, otherwise: "`--s3-endpoint`'s", "the S3-compatible service backups go to")
    static let backupS3Region = Setting("backup-s3-region", .text, otherwise: "`--s3-region`'s", "its region")
    static let backupS3AccessKey = Setting("backup-s3-access-key", .text, otherwise: "`--s3-access-key`'s", secret: true, "its access key")
    static let backupS3SecretKey = Setting("backup-s3-secret-key", .text, otherwise: "`--s3-secret-key`'s", secret: true, "its secret key")
    static let otlpEndpoint = Setting(
        "otlp-endpoint", .text, otherwise: "no traces",
        "send a trace of each request (the request, the record engine, SQL, S3) to this OpenTelemetry collector over OTLP/HTTP, such as `http://localhost:4318`; the `OTEL_*` variables tune the exporter"
    )
    static let assetSweepInterval = Setting("asset-sweep-interval", .number, default: String(Int(server.assetSweepInterval)), "seconds between sweeps deleting asset files no record holds")
    static let s3Endpoint = Setting("s3-endpoint", .text, "keep asset files in this S3-compatible service instead of the data folder")
    static let s3Region = Setting(
        "s3-region", .text, default: S3Configuration(endpoint: "", bucket: "", accessKey: "", secretKey: "").region, "the S3 region"
    )
    static let s3Bucket = Setting("s3-bucket", .text, "the S3 bucket, created if missing")
    static let s3AccessKey = Setting("s3-access-key", .text, secret: true, "the S3 access key")
    static let s3SecretKey = Setting("s3-secret-key", .text, secret: true, "the S3 secret key")
    static let s3KeyPrefix = Setting("s3-key-prefix", .text, "a prefix for every S3 object key, such as `assets/`")
    static let notificationTTL = Setting("notification-ttl", .integer, default: String(server.notificationQueueLifetime), "seconds courier queues and their notifications are kept")
    static let courierWait = Setting("courier-wait", .number, default: String(Int(server.courierWait)), "seconds a courier long poll waits before answering empty")
    static let smtpURL = Setting(
        "smtp-url", .text, secret: true,
        "the SMTP server account mail goes through: `smtp://USER:PASSWORD@HOST:PORT` (STARTTLS when offered; `?tls=starttls` requires it) or `smtps://...` (implicit TLS); `?ca=FILE` trusts a private authority; mail waits in the queue until set"
    )
    static let smtpFrom = Setting(
        "smtp-from", .text, otherwise: "`no-reply@` the request's host (`no-reply@[127.0.0.1]` for an address)",
        "the address mail comes from when a container sets none"
    )
    static let appleKeysURL = Setting(
        "apple-keys-url", .text, default: server.appleKeysURL,
        "where Sign in with Apple's signing keys are fetched from (a JSON Web Key Set; `https`, or `http` on loopback)"
    )
    static let secretsKey = Setting(
        "secrets-key", .text, otherwise: "generated and kept in the data folder (SQLite); none with --database", secret: true,
        "the key that seals containers' secrets and providers' tokens: 32 bytes in base64 (`openssl rand -base64 32`); several, separated by commas, while rotating (the first seals, all open); every node needs the same"
    )
    static let secretsKeyFile = Setting("secrets-key-file", .text, "a file holding the secrets key(s) instead, one per line")
    static let webhooksAllowPrivate = Setting(
        "webhooks-allow-private", .flag, default: "off", "let webhooks go to loopback, private and link-local addresses (refused by default)"
    )
    static let apnsKeyFile = Setting("apns-key-file", .text, "Apple's push service: the `.p8` key file (with the three below)")
    static let apnsKeyID = Setting("apns-key-id", .text, "Apple's push service: the key's ID")
    static let apnsTeamID = Setting("apns-team-id", .text, "Apple's push service: the developer team ID")
    static let apnsTopic = Setting("apns-topic", .text, "Apple's push service: the app's bundle ID, sent as `apns-topic`")
    static let headTimeout = Setting(
        "head-timeout", .number, default: Setting.secondsText(server.connectionLimits.requestHeadTimeout),
        "seconds a connection may take to send a request head, idle time between requests included"
    )
    static let bodyTimeout = Setting("body-timeout", .number, default: Setting.secondsText(server.connectionLimits.bodyIdleTimeout), "seconds a request body may go without a byte")
    static let maxConnectionsPerAddress = Setting(
        "max-connections-per-address", .integer, default: String(server.connectionLimits.maximumConnectionsPerAddress),
        "connections one client address may hold open; raise it behind a proxy"
    )
    static let trustForwardedFor = Setting(
        "trust-forwarded-for", .flag, default: "off",
        "take the client address (for throttles and address rates) from `X-Forwarded-For`; only behind a proxy that sets it"
    )

    /// Every setting, in the order `--help` and the documentation list them.
    static let all: [Setting] = [
        config, host, port, data, database, databasePoolSize, adminKey, sync, publicURL, nodeName, passwordRounds, signInPause, quiet,
        maxAssetSize, uploadURLLifetime, downloadURLLifetime, assetSweepInterval, s3Endpoint, s3Region, s3Bucket, s3AccessKey, s3SecretKey,
        s3KeyPrefix, notificationTTL, courierWait, smtpURL, smtpFrom, appleKeysURL, secretsKey, secretsKeyFile, webhooksAllowPrivate, apnsKeyFile, apnsKeyID, apnsTeamID, apnsTopic, headTimeout, bodyTimeout,
        maxConnectionsPerAddress, trustForwardedFor, usageInterval, requestLogDays, otlpEndpoint, backupBucket, backupPrefix, backupInterval,
        backupKeep, backupS3Endpoint, backupS3Region, backupS3AccessKey, backupS3SecretKey,
    ]

    /// The list as `stratus serve --help` shows it, wrapped to fit 80 columns.
    static var helpText: String {
        let lines = all.flatMap { setting -> [String] in
            let value = setting.kind == .flag ? "" : " <value>"
            let text = "\(setting.meaning). Default: \(setting.defaultDescription).".replacingOccurrences(of: "`", with: "")
            return ["  \(setting.flag)\(value)  (\(setting.environmentVariable))"] + wrap(text, width: 72).map { "      " + $0 }
        }
        return "Settings: a flag wins over its environment variable, a variable over the --config file.\n\n" + lines.joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    private static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return line.isEmpty ? lines : lines + [line]
    }
}

extension ServeSettings {
    /// The settings as docs/configuration.md lists them, a Markdown table row each.
    static var markdownTable: String {
        let rows = all.map { setting in
            let value = setting.defaultValue.map { $0.isEmpty ? "none" : "`\($0)`" } ?? setting.computedDefault ?? "none"
            return "| `\(setting.flag)` | `\(setting.environmentVariable)` | \(value) | \(setting.meaning) |"
        }
        return (["| flag | variable | default | meaning |", "|---|---|---|---|"] + rows).joined(separator: "\n")
    }
}
