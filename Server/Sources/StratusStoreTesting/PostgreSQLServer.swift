import Foundation

/// A real PostgreSQL server for tests, and a fresh database in it per test.
///
/// The server is `STRATUS_POSTGRES_URL` when set (`.ci/run` starts a throwaway cluster and sets it). Elsewhere,
/// when Debian's `postgresql` is installed or installable, the first test that needs one starts a throwaway
/// cluster with `.ci/postgres-cluster`, stopped when the test process ends.
public enum PostgreSQLServer {
    /// The server's URL (its `postgres` database), or why there is none.
    public static let shared: Result<String, PostgreSQLUnavailable> = locate()

    /// A fresh, empty database for a test. Under CI (`CI=true`) a missing server fails the test; elsewhere the
    /// test does not run, and says why. Waits for `psql` without holding a thread.
    /// - Throws: ``PostgreSQLUnavailable`` under CI when there is no server, or when the database cannot be made.
    public static func databaseForTest() async throws -> TestDatabase? {
        guard let server = try serverForTest() else { return nil }
        let database = TestDatabase(server: server)
        try await psql(server, "CREATE DATABASE \(database.name)")
        return database
    }

    /// Like ``databaseForTest()``, for callers that cannot wait asynchronously.
    public static func databaseForTestBlocking() throws -> TestDatabase? {
        guard let server = try serverForTest() else { return nil }
        let database = TestDatabase(server: server)
        try psqlBlocking(server, "CREATE DATABASE \(database.name)")
        return database
    }

    private static func serverForTest() throws -> String? {
        switch shared {
        case .success(let url):
            return url
        case .failure(let reason):
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw reason }
            print("not run: \(reason)")
            return nil
        }
    }

    /// A database made for one test; ``remove()`` drops it.
    public struct TestDatabase: Sendable {
        /// `postgres://...` of the database.
        public let url: String
        let server: String
        let name: String

        init(server: String) {
            self.server = server
            name = "stratus_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            url = PostgreSQLServer.replacingDatabase(in: server, with: name)
        }

        /// Drops the database, closing whatever connections are left.
        public func remove() async {
            await PostgreSQLServer.dropDatabase(url)
        }
    }

    public struct PostgreSQLUnavailable: Error, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Runs one SQL command with `psql`, waiting for it without holding one of the tasks' threads.
    public static func psql(_ url: String, _ command: String) async throws {
        try await ChildProcess.offload { try psqlBlocking(url, command) }
    }

    /// The rows of a one-column query, through `psql`.
    public static func rows(_ url: String, _ query: String) async throws -> [String] {
        let (status, output) = try await ChildProcess.run("psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", query])
        guard status == 0 else { throw PostgreSQLUnavailable(description: "psql failed on \(query): \(output)") }
        return output.split(separator: "\n").map(String.init)
    }

    /// Runs one SQL command with `psql`, blocking the calling thread until it ends.
    public static func psqlBlocking(_ url: String, _ command: String) throws {
        let (status, output) = try ChildProcess.runBlocking("psql", [url, "-v", "ON_ERROR_STOP=1", "-qAtc", command])
        guard status == 0 else { throw PostgreSQLUnavailable(description: "psql failed on \(command): \(output)") }
    }

    /// Drops a test database, named by its URL, closing whatever connections are left.
    public static func dropDatabase(_ url: String) async {
        guard case .success(let server) = shared, let name = URLComponents(string: url)?.path.dropFirst(), name.hasPrefix("stratus_test_") else { return }
        try? await psql(server, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// The URL with its path (database name) replaced.
    public static func replacingDatabase(in url: String, with database: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.path = "/" + database
        return components.string ?? url
    }

    private static func locate() -> Result<String, PostgreSQLUnavailable> {
        if let url = ProcessInfo.processInfo.environment["STRATUS_POSTGRES_URL"], !url.isEmpty { return .success(url) }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            return .failure(PostgreSQLUnavailable(description: "STRATUS_POSTGRES_URL is not set (.ci/run starts a cluster and sets it)"))
        }
        let script = Repository.path(".ci/postgres-cluster")
        let text: String
        let status: Int32
        do {
            let child = try ChildProcess("bash", [script, "--until-pid", String(ProcessInfo.processInfo.processIdentifier)], output: .pipe)
            text = String(decoding: child.output?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
            status = child.waitForExit()
        } catch {
            return .failure(PostgreSQLUnavailable(description: "cannot run \(script): \(error)"))
        }
        let url = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0, url.hasPrefix("postgres://") else {
            return .failure(PostgreSQLUnavailable(description: "no PostgreSQL: \(script) failed (install Debian's postgresql)"))
        }
        return .success(url)
    }
}
