import Foundation
import StratusAdmin
import StratusKit
import StratusServer
import StratusTestSupport

/// A real Stratus server on a loopback port, in this process (over the backend the tests run against), with
/// the test container created, for the SDK to talk to over HTTP.
struct KitTestServer: Sendable {
    static let container = "iCloud.com.example.Kit"

    let url: URL
    let apiToken: String
    let admin: AdminClient
    /// A folder for what the test's devices keep on disk, removed after the test.
    let deviceFolder: TestFolder

    /// Runs `body` against a fresh server with the test container created.
    /// - Parameter configure: changes to the server's configuration (an SMTP server, say).
    static func run(
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in }, _ body: @escaping @Sendable (KitTestServer) async throws -> Void
    ) async throws {
        let deviceFolder = try TestFolder("stratus-devices")
        defer { deviceFolder.remove() }
        try await LiveTestServer.run(configure: configure) { server in
            let token = try await server.admin.createContainer(container)
            try await body(KitTestServer(url: server.url, apiToken: token, admin: server.admin, deviceFolder: deviceFolder))
        }
    }

    /// A file for one device's saved data, new to this test.
    func deviceFile() -> URL {
        URL(fileURLWithPath: deviceFolder.path).appendingPathComponent("device-\(UUID().uuidString).json")
    }

    /// Replaces the development schema.
    func importSchema(_ text: String) async throws {
        try await admin.importSchema(text, container: Self.container)
    }

    /// A signed-up user holding the Admin role.
    func signedUpAdmin(_ email: String) async throws -> Container {
        let container = try await signedUp(email)
        try await admin.setRoles(["Admin"], of: try await container.userRecordID().recordName, container: Self.container)
        return container
    }

    /// A new client of the test container.
    func container(webAuthToken: String? = nil, transport: (any Transport)? = nil) -> Container {
        if let transport {
            return Container(identifier: Self.container, serverURL: url, apiToken: apiToken, webAuthToken: webAuthToken, transport: transport)
        }
        return Container(identifier: Self.container, serverURL: url, apiToken: apiToken, webAuthToken: webAuthToken)
    }

    /// A client with a freshly signed-up user.
    func signedUp(_ email: String, givenName: String? = nil) async throws -> Container {
        let container = container()
        try await container.signUp(email: email, password: "correct horse battery", givenName: givenName)
        return container
    }
}
