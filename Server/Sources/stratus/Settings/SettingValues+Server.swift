import StratusServices
import ArgumentParser
import Foundation
import StratusBlobs
import StratusMail
import StratusServer
import StratusStore

/// The parts of the server that `stratus serve`'s settings make.
extension SettingValues {
    /// The server's configuration; the admin key and the node's name are settled by the caller.
    func serverConfiguration(adminKey: String) throws -> ServerConfiguration {
        var configuration = ServerConfiguration(adminKey: adminKey)
        configuration.host = text(ServeSettings.host) ?? configuration.host
        configuration.port = try integer(ServeSettings.port)
        configuration.passwordHashRounds = try integer(ServeSettings.passwordRounds)
        configuration.publicURL = text(ServeSettings.publicURL)
        configuration.logRequests = !(try flag(ServeSettings.quiet))
        configuration.maximumAssetBytes = try size(ServeSettings.maxAssetSize)
        configuration.assetUploadLifetime = try integer(ServeSettings.uploadURLLifetime)
        configuration.assetDownloadLifetime = try integer(ServeSettings.downloadURLLifetime)
        configuration.assetSweepInterval = try number(ServeSettings.assetSweepInterval)
        configuration.usageInterval = try number(ServeSettings.usageInterval)
        configuration.requestLogDays = Int(try number(ServeSettings.requestLogDays))
        configuration.notificationQueueLifetime = try integer(ServeSettings.notificationTTL)
        configuration.courierWait = try number(ServeSettings.courierWait)
        configuration.apns = try apnsConfiguration()
        if let url = text(ServeSettings.smtpURL) {
            do {
                configuration.smtp = try SMTPSettings(url: url)
            } catch {
                throw ValidationError("--smtp-url: \(error.message)")
            }
        }
        if let from = text(ServeSettings.smtpFrom) {
            guard from.contains("@"), !from.contains(where: \.isWhitespace) else { throw ValidationError("--smtp-from must be an email address") }
            configuration.mailFrom = from
        }
        if let url = text(ServeSettings.appleKeysURL) {
            // Its siblings …/auth/token and …/auth/revoke carry client secrets and refresh tokens.
            guard SecureEndpoint.isAllowed(url) else {
                throw ValidationError("--apple-keys-url must be an https URL (http only on loopback, such as http://127.0.0.1:9000/auth/keys)")
            }
            configuration.appleKeysURL = url
        }
        configuration.tracesRequests = try tracesURL() != nil
        configuration.trustForwardedFor = try flag(ServeSettings.trustForwardedFor)
        configuration.webhooksAllowPrivate = try flag(ServeSettings.webhooksAllowPrivate)
        configuration.connectionLimits = try connectionLimits()
        configuration.signInPause = try integer(ServeSettings.signInPause)
        guard configuration.signInPause > 0 else { throw ValidationError("--sign-in-pause must be at least 1 second") }
        return configuration
    }

    /// Where spans are sent (`--otlp-endpoint`, with the traces path), or `nil` when traces are off.
    func tracesURL() throws -> String? {
        guard let endpoint = text(ServeSettings.otlpEndpoint) else { return nil }
        guard let url = TraceExport.tracesURL(endpoint) else {
            throw ValidationError("--otlp-endpoint must be the http or https URL of an OpenTelemetry collector, such as http://localhost:4318")
        }
        return url
    }

    /// The bucket backups go to (`--backup-bucket`, through the `--backup-s3` settings or else the `--s3` ones), with
    /// its key prefix; `nil` when backups are off.
    func backupBucket() throws -> S3Configuration? {
        guard let bucket = text(ServeSettings.backupBucket) else { return nil }
        guard let endpoint = text(ServeSettings.backupS3Endpoint) ?? text(ServeSettings.s3Endpoint),
            let accessKey = text(ServeSettings.backupS3AccessKey) ?? text(ServeSettings.s3AccessKey),
            let secretKey = text(ServeSettings.backupS3SecretKey) ?? text(ServeSettings.s3SecretKey)
        else {
            throw ValidationError("--backup-bucket needs an S3 service: --backup-s3-endpoint, --backup-s3-access-key and --backup-s3-secret-key, or the --s3 ones")
        }
        guard try integer(ServeSettings.backupKeep) >= 1 else { throw ValidationError("--backup-keep must be at least 1") }
        guard try number(ServeSettings.backupInterval) >= 1 else { throw ValidationError("--backup-interval must be at least 1 second") }
        return S3Configuration(
            endpoint: endpoint, region: text(ServeSettings.backupS3Region) ?? text(ServeSettings.s3Region) ?? "us-east-1", bucket: bucket,
            accessKey: accessKey, secretKey: secretKey, keyPrefix: text(ServeSettings.backupPrefix) ?? ""
        )
    }

    /// The secrets keys `--secrets-key` or `--secrets-key-file` give; else, with `generateIn`, the one kept in that data
    /// folder (made on first use); else none.
    func secretsKeys(generateIn folder: DataFolder?) throws -> SecretsKeyring {
        var keys = text(ServeSettings.secretsKey)
        if keys == nil, let file = text(ServeSettings.secretsKeyFile) {
            guard let contents = try? String(contentsOfFile: file, encoding: .utf8) else { throw ValidationError("cannot read the secrets key file \(file)") }
            keys = contents
        }
        if keys == nil, let folder { keys = try folder.secretsKey() }
        guard let keys else { return SecretsKeyring(keys: []) }
        do {
            return try SecretsKeyring(parsing: keys)
        } catch let error as ServiceError {
            throw ValidationError("--secrets-key: \(error.message)")
        }
    }

    /// Deadlines for slow clients and the cap on connections per address.
    func connectionLimits() throws -> ConnectionLimits {
        let head = try number(ServeSettings.headTimeout)
        let body = try number(ServeSettings.bodyTimeout)
        let perAddress = try integer(ServeSettings.maxConnectionsPerAddress)
        guard head > 0, body > 0, perAddress > 0 else {
            throw ValidationError("--head-timeout, --body-timeout and --max-connections-per-address must be positive")
        }
        var limits = ConnectionLimits()
        limits.requestHeadTimeout = .milliseconds(Int64(head * 1000))
        limits.bodyIdleTimeout = .milliseconds(Int64(body * 1000))
        limits.maximumConnectionsPerAddress = perAddress
        return limits
    }

    /// Apple's push service, or `nil` when no key file is given.
    func apnsConfiguration() throws -> APNsConfiguration? {
        guard let file = text(ServeSettings.apnsKeyFile) else { return nil }
        guard let keyID = text(ServeSettings.apnsKeyID), let teamID = text(ServeSettings.apnsTeamID), let topic = text(ServeSettings.apnsTopic) else {
            throw ValidationError("--apns-key-file needs --apns-key-id, --apns-team-id and --apns-topic")
        }
        guard let pem = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read the APNs key file \(file)")
        }
        return APNsConfiguration(privateKeyPEM: pem, keyID: keyID, teamID: teamID, topic: topic)
    }

    /// The configured S3 bucket, or the `assets` folder of the data folder.
    func blobStore(dataFolder: DataFolder) async throws -> any BlobStore {
        guard let endpoint = text(ServeSettings.s3Endpoint) else {
            return try FolderBlobStore(root: URL(fileURLWithPath: dataFolder.path).appendingPathComponent("assets"))
        }
        guard let bucket = text(ServeSettings.s3Bucket), let accessKey = text(ServeSettings.s3AccessKey), let secretKey = text(ServeSettings.s3SecretKey) else {
            throw ValidationError("--s3-endpoint needs --s3-bucket, --s3-access-key and --s3-secret-key")
        }
        let store = try S3BlobStore(configuration: S3Configuration(
            endpoint: endpoint, region: text(ServeSettings.s3Region) ?? "", bucket: bucket, accessKey: accessKey, secretKey: secretKey,
            keyPrefix: text(ServeSettings.s3KeyPrefix) ?? ""
        ))
        try await store.createBucketIfNeeded()
        return store
    }
}
