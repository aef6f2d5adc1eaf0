import ArgumentParser
import Foundation
import Logging
import StratusPostgres
import StratusStore

/// Where the admin commands act: a running server's admin API, found by `--url` or by the data folder it
/// runs on, or the data folder itself when no server runs on it.
struct AdminTarget: ParsableArguments {
    @Option(help: "The URL of a running server to manage (STRATUS_URL).")
    var url: String?

    @Option(help: "That server's admin key (STRATUS_ADMIN_KEY); by default the one kept in the data folder.")
    var adminKey: String?

    @Option(help: "The data folder (STRATUS_DATA); when a server runs on it, the command goes through that server.")
    var data: String?

    @Option(help: "The PostgreSQL database the server keeps its records in (STRATUS_DATABASE), when it is not the data folder's SQLite.")
    var database: String?

    @Option(help: "The most connections to PostgreSQL at once (STRATUS_DATABASE_POOL_SIZE).")
    var databasePoolSize: Int?

    var folder: DataFolder { DataFolder.named(data) }

    /// The URL and admin key of the server named or running on the folder, for commands that work through a
    /// running server only.
    func runningServer(for command: String) async throws -> (url: String, adminKey: String) {
        let key = adminKey ?? environmentValue(ServeSettings.adminKey.environmentVariable)
        let found: String
        if let url = url ?? environmentValue("STRATUS_URL") {
            found = url.hasSuffix("/") ? String(url.dropLast()) : url
        } else if let running = await RunningServer.find(in: folder) {
            found = running.url
        } else {
            throw CommandFailure("\(command) writes through a running server: start stratus serve on \(folder.path), or name one with --url")
        }
        guard let key = key ?? folder.storedAdminKey() else {
            throw CommandFailure("give the admin key of the server at \(found) with --admin-key or STRATUS_ADMIN_KEY")
        }
        return (found, key)
    }

    /// The admin API of the server named or running on the folder, for commands that work through it only.
    func remote(for command: String) async throws -> RemoteAdmin {
        let server = try await runningServer(for: command)
        return RemoteAdmin(baseURL: server.url, adminKey: server.adminKey)
    }

    /// The admin API of the server named or running on the folder, else the folder's store.
    /// - Parameter makingFolder: whether a folder named with `--data` (or `STRATUS_DATA`) that holds no data yet may
    ///   be made (`stratus container create`); otherwise a folder with no data and no server is an error, so that a
    ///   command run in the wrong place says so instead of answering from a new, empty store.
    func connect(makingFolder: Bool = false) async throws -> any AdminBackend {
        let key = adminKey ?? environmentValue(ServeSettings.adminKey.environmentVariable)
        if let url = url ?? environmentValue("STRATUS_URL") {
            guard let key = key ?? folder.storedAdminKey() else {
                throw ValidationError("--url needs the server's admin key: --admin-key or STRATUS_ADMIN_KEY")
            }
            return RemoteAdmin(baseURL: url.hasSuffix("/") ? String(url.dropLast()) : url, adminKey: key)
        }
        if let running = await RunningServer.find(in: folder) {
            guard let key = key ?? folder.storedAdminKey() else {
                throw ValidationError("a server runs on \(folder.path) at \(running.url); give its admin key with --admin-key or STRATUS_ADMIN_KEY")
            }
            return RemoteAdmin(baseURL: running.url, adminKey: key)
        }
        if let url = database ?? environmentValue(ServeSettings.database.environmentVariable) {
            let poolSize = databasePoolSize ?? environmentValue(ServeSettings.databasePoolSize.environmentVariable).flatMap(Int.init) ?? 2
            var logger = Logger(label: "stratus")
            logger.logLevel = .error
            do {
                return LocalAdmin(store: try await PostgresStore.connect(configuration: .init(url: url, poolSize: poolSize), logger: logger))
            } catch let error as StorageError {
                throw ValidationError("cannot use the database: \(error.message)")
            }
        }
        let named = data != nil || environmentValue(ServeSettings.data.environmentVariable) != nil
        guard FileManager.default.fileExists(atPath: folder.databasePath) || (makingFolder && named) else {
            throw CommandFailure(
                "no Stratus server found: none runs on \(folder.path), and it holds no data. Start one with stratus serve, or name a running one with --url (STRATUS_URL) or its data folder with --data"
            )
        }
        return LocalAdmin(store: try folder.openStore())
    }
}
