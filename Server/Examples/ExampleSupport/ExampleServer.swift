import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusAdmin
import StratusKit

/// What the examples need beside StratusKit: a container on a local server, set up with the admin API.
///
/// The server is `STRATUS_URL` (default `http://127.0.0.1:8080`); the admin key is `STRATUS_ADMIN_KEY`, or
/// the one `stratus serve` keeps in `./stratus-data/admin.key`.
public struct ExampleServer: Sendable {
    public let url: URL
    let admin: AdminClient

    public init() throws {
        let environment = ProcessInfo.processInfo.environment
        url = URL(string: environment["STRATUS_URL"] ?? "http://127.0.0.1:8080")!
        let adminKey: String
        if let key = environment["STRATUS_ADMIN_KEY"] {
            adminKey = key
        } else if let key = try? String(contentsOfFile: "stratus-data/admin.key", encoding: .utf8) {
            adminKey = key.trimmingCharacters(in: .whitespacesAndNewlines)
        } else {
            throw ExampleError("set STRATUS_ADMIN_KEY, or run from the folder holding stratus-data/")
        }
        admin = AdminClient(url: url, adminKey: adminKey)
    }

    /// The container's API token, creating the container on first use.
    public func apiToken(for containerID: String) async throws -> String {
        try await admin.apiToken(for: containerID)
    }

    /// A client of the container, signed in as `email` (signed up on first use).
    public func signedIn(_ email: String, containerID: String, givenName: String? = nil) async throws -> Container {
        let container = Container(identifier: containerID, serverURL: url, apiToken: try await apiToken(for: containerID))
        do {
            try await container.signIn(email: email, password: "example password \(email)")
        } catch let error as StratusError where error.code == .notAuthenticated {
            try await container.signUp(email: email, password: "example password \(email)", givenName: givenName)
        }
        return container
    }

    /// Adds a schema's record types (a kit's) to the container's development schema, keeping the types there.
    public func installSchema(_ text: String, containerID: String) async throws {
        _ = try await apiToken(for: containerID)
        try await admin.installSchema(text, container: containerID)
    }

    /// Gives a user roles in the development environment.
    public func assign(_ roles: [String], to user: Container) async throws {
        try await admin.setRoles(roles, of: try await user.userRecordID().recordName, container: user.identifier)
    }
}

/// Prints a line and sends it on at once, even when output is a pipe (`fatchat listen | tee chat.log`),
/// where `print` alone would hold it in a buffer until the process ends.
public func printNow(_ line: String) {
    print(line)
    fflush(nil)
}

/// Runs an example's body, and ends the process with a readable message if it fails.
public func runExample(_ body: () async throws -> Void) async {
    do {
        try await body()
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}

/// Why an example stopped.
public struct ExampleError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
