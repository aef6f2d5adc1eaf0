import StratusServices
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
#if canImport(Glibc)
import Glibc
#endif

/// `stratus serve`: runs the server on the embedded SQLite store, or on PostgreSQL with `--database`. Its settings
/// are ``ServeSettings``, read through ``SettingValues``.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server.", usage: "stratus serve [--<setting> <value> ...]", discussion: ServeSettings.helpText
    )

    @Argument(parsing: .allUnrecognized, help: "Settings, as --name value; listed below.")
    var settings: [String] = []

    func run() async throws {
        LoggingSystem.bootstrap { label in BufferedLogHandler(label: label) }
        defer { LogSink.standardError.flush() }
        let logger = Logger(label: "stratus")

        let values = try await SettingValues(arguments: settings)
        // Every setting is checked before anything is opened or written.
        var configuration = try values.serverConfiguration(adminKey: "")
        let folder = DataFolder(path: values.text(ServeSettings.data) ?? "")
        let backupBucket = try values.backupBucket()
        if backupBucket != nil, values.text(ServeSettings.database) != nil {
            throw ValidationError("--backup-bucket backs up a data folder's SQLite database; back PostgreSQL up with its own tools (docs/backups.md)")
        }
        let syncName = values.text(ServeSettings.sync) ?? ""
        guard let durability = SQLiteStore.Configuration.Durability(rawValue: syncName) else {
            throw ValidationError("--sync must be 'process' or 'full', not '\(syncName)'")
        }
        let store = try await openStore(values, folder: folder, durability: durability, logger: logger)
        // Once rotated or turned off through the admin API, the stored key rules (the data folder's copy follows it).
        let rotated = try await store.adminKeyState()
        if let key = values.text(ServeSettings.adminKey) {
            configuration.adminKey = key
            if let rotated {
                logger.warning("the admin key was changed through the admin API (\(rotated.isEnabled ? "rotated" : "turned off") by \(rotated.changedBy)): --admin-key is not used")
            }
        } else if rotated != nil {
            configuration.adminKey = folder.storedAdminKey() ?? ""
            configuration.adminKeyFile = folder.adminKeyPath
        } else {
            let stored = try folder.adminKey()
            configuration.adminKey = stored.key
            configuration.adminKeyFile = folder.adminKeyPath
            if stored.generated {
                // Written unbuffered, so it shows at once when output goes to a file or a pipe.
                FileHandle.standardOutput.write(Data("Generated an admin key (kept in \(folder.adminKeyPath)); it is shown only this once:\n  \(stored.key)\n".utf8))
            }
        }
        // SQLite keeps its secrets key beside its file; PostgreSQL's nodes must all be given the same one.
        configuration.secretsKeys = try values.secretsKeys(generateIn: store.isReachedOverNetwork ? nil : folder)
        configuration.nodeName = values.text(ServeSettings.nodeName)
            ?? "\(ProcessInfo.processInfo.hostName):\(configuration.port == 0 ? "pid\(ProcessInfo.processInfo.processIdentifier)" : "\(configuration.port)")"
        Self.raiseOpenFileLimit()
        let blobs = try await values.blobStore(dataFolder: folder)
        var services: [any Service] = [store]
        if let tracesURL = try values.tracesURL() {
            services.append(try TraceExport.start(tracesURL: tracesURL, nodeName: configuration.nodeName))
        }
        var backups: ScheduledBackups?
        if let backupBucket {
            let bucket = try S3BlobStore(configuration: backupBucket)
            backups = ScheduledBackups(
                bucket: bucket, destination: "s3://\(backupBucket.bucket)/\(backupBucket.keyPrefix)",
                intervalSeconds: Int(try values.number(ServeSettings.backupInterval)), keep: try values.integer(ServeSettings.backupKeep),
                workFolder: folder.path + "/.backups-in-progress", writeArchive: { file in try BackupArchive.summary(of: folder, writtenTo: file) },
                logger: Logger(label: "stratus.backups")
            )
            services.append(backups!)
        }
        let host = configuration.host
        let app = try await buildApplication(configuration: configuration, store: store, blobs: blobs, services: services, backups: backups, logger: logger) { port in
            // The admin commands given this folder find the server through this note, and go through it.
            do { try RunningServer.record(host: host, port: port, in: folder) } catch {
                logger.warning("cannot note the running server in the data folder", metadata: ["stratus.error": "\(String(reflecting: error))"])
            }
            // Written unbuffered: scripts wait for this line to know the server is up.
            let records = store.isReachedOverNetwork ? store.location : folder.path
            FileHandle.standardOutput.write(Data("Stratus is listening on http://\(host):\(port) (data in \(records))\n".utf8))
        }
        defer { RunningServer.clear(in: folder) }
        try await app.runService()
    }

    /// The store `--database` names, or SQLite in the data folder.
    private func openStore(
        _ values: SettingValues, folder: DataFolder, durability: SQLiteStore.Configuration.Durability, logger: Logger
    ) async throws -> any Store & Service {
        guard let url = values.text(ServeSettings.database) else {
            return try folder.openStore(durability: durability, logger: logger)
        }
        return try await connectDatabase(url, option: "--database", poolSize: try values.integer(ServeSettings.databasePoolSize), logger: logger)
    }

    /// Raises the process's open-file limit to the most it may have: every connection is a file, and the usual soft
    /// limit of 1,024 is low for a server.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
