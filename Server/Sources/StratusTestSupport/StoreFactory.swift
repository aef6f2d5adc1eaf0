import Foundation
import Logging
import StratusPostgres
import StratusSQLite
import StratusStore
import StratusStoreTesting

/// Makes fresh stores of one backend, so that the HTTP, SDK and end-to-end tests run unchanged against any
/// backend: they ask ``current`` for their store (in process) or for the arguments of `stratus serve`.
///
/// ```swift
/// let folder = try TestFolder()
/// let store = try await StoreFactory.current.makeStore(in: folder.path)
/// ```
public struct StoreFactory: Sendable, CustomStringConvertible {
    /// The backend's name, as `STRATUS_TEST_BACKEND` spells it.
    public let name: String
    /// Makes an empty store; `folder` is a fresh folder for its files, removed by the caller.
    public let makeStore: @Sendable (_ folder: String) async throws -> any Store
    /// Arguments that make `stratus serve --data <folder>` use this backend (none for the embedded default).
    public let serveArguments: @Sendable (_ folder: String) -> [String]
    /// Closes a store ``makeStore`` made and frees what it holds outside its folder (connections, a database).
    public let releaseStore: @Sendable (_ store: any Store, _ folder: String) async -> Void

    public init(
        name: String, makeStore: @escaping @Sendable (String) async throws -> any Store,
        serveArguments: @escaping @Sendable (String) -> [String] = { _ in [] },
        releaseStore: @escaping @Sendable (any Store, String) async -> Void = { _, _ in }
    ) {
        self.name = name
        self.makeStore = makeStore
        self.serveArguments = serveArguments
        self.releaseStore = releaseStore
    }

    public var description: String { name }

    /// A new SQLite file in the folder.
    public static let sqlite = StoreFactory(name: "sqlite") { folder in
        try SQLiteStore(configuration: .init(path: folder + "/stratus.sqlite"))
    }

    /// A fresh database on the test PostgreSQL server (see ``PostgreSQLServer``); its name is kept in the folder,
    /// and the database is dropped when the test process ends with the server. Under CI a missing server fails.
    public static let postgres = StoreFactory(
        name: "postgres",
        makeStore: { folder in
            var logger = Logger(label: "stratus.postgres")
            logger.logLevel = .error
            // Two connections (and one listening) per store: hundreds of test servers share one PostgreSQL.
            var configuration = try PostgresStore.Configuration(url: try await postgresDatabase(folder), poolSize: 2)
            // Hundreds of tests start at once on two cores: connections may take longer than in production.
            configuration.connectionWait = .seconds(30)
            return try await PostgresStore.connect(configuration: configuration, logger: logger)
        },
        serveArguments: { folder in
            (try? ["--database", postgresDatabaseBlocking(folder), "--database-pool-size", "2"]) ?? ["--database", "postgres://no-test-server@unavailable"]
        },
        releaseStore: { store, folder in
            await (store as? PostgresStore)?.close()
            if let url = try? String(contentsOfFile: folder + "/postgres-url", encoding: .utf8) { await PostgreSQLServer.dropDatabase(url) }
        }
    )

    /// The URL of the folder's test database, made on first use.
    private static func postgresDatabase(_ folder: String) async throws -> String {
        let note = folder + "/postgres-url"
        if let url = try? String(contentsOfFile: note, encoding: .utf8) { return url }
        guard let database = try await PostgreSQLServer.databaseForTest() else { throw noServer }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try database.url.write(toFile: note, atomically: true, encoding: .utf8)
        return database.url
    }

    private static func postgresDatabaseBlocking(_ folder: String) throws -> String {
        let note = folder + "/postgres-url"
        if let url = try? String(contentsOfFile: note, encoding: .utf8) { return url }
        guard let database = try PostgreSQLServer.databaseForTestBlocking() else { throw noServer }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try database.url.write(toFile: note, atomically: true, encoding: .utf8)
        return database.url
    }

    private static let noServer = PostgreSQLServer.PostgreSQLUnavailable(description: "no PostgreSQL server for the tests (install Debian's postgresql)")

    /// Every backend the tests know.
    public static let all: [StoreFactory] = [.sqlite, .postgres]

    /// The backend named by `STRATUS_TEST_BACKEND` (SQLite when unset). An unknown name stops the tests rather
    /// than silently testing another backend.
    public static var current: StoreFactory {
        let name = ProcessInfo.processInfo.environment["STRATUS_TEST_BACKEND"] ?? "sqlite"
        guard let factory = all.first(where: { $0.name == name }) else {
            fatalError("STRATUS_TEST_BACKEND=\(name) is not one of \(all.map(\.name).joined(separator: ", "))")
        }
        return factory
    }
}

/// A fresh folder under the temporary directory, removed with ``remove()``.
public struct TestFolder: Sendable {
    public let path: String

    /// Creates the folder; `prefix` names what it is for.
    public init(_ prefix: String = "stratus-test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
