import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Hummingbird
import HummingbirdTesting
import Logging
import StratusBlobs
import StratusKit
import StratusServer
import StratusSQLite
import Testing

/// A real Stratus server on a loopback port, in this process, for the SDK to talk to over HTTP.
struct KitTestServer: Sendable {
    static let adminKey = "kit-admin-key"
    static let container = "iCloud.com.example.Kit"

    let url: URL
    let apiToken: String

    /// Runs `body` against a fresh server with the test container created.
    static func run(_ body: @escaping @Sendable (KitTestServer) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-kit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteStore(configuration: .init(path: folder + "/stratus.sqlite"))
        let blobs = try FolderBlobStore(root: URL(fileURLWithPath: folder + "/assets"))
        let configuration = ServerConfiguration(adminKey: adminKey, maximumRequestBytes: 8 * 1024 * 1024, passwordHashRounds: 1_000, logRequests: false)
        let router = try await buildRouter(configuration: configuration, store: store, blobs: blobs)
        var logger = Logger(label: "kit-tests")
        logger.logLevel = .critical
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
        try await app.test(.live) { client in
            let url = URL(string: "http://127.0.0.1:\(client.port!)")!
            var request = URLRequest(url: url.appendingPathComponent("/admin/1/containers"))
            request.httpMethod = "POST"
            request.setValue("Bearer \(adminKey)", forHTTPHeaderField: "Authorization")
            request.httpBody = Data(#"{"containerID":"\#(container)"}"#.utf8)
            let (data, _) = try await URLSession.shared.data(for: request)
            guard let token = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["apiToken"] as? String else {
                throw StratusError(.internalError, "no API token")
            }
            try await body(KitTestServer(url: url, apiToken: token))
        }
    }

    /// Calls the admin API with the admin key; answers the status.
    @discardableResult
    func admin(_ method: String, _ path: String, body: String) async throws -> Int {
        var request = URLRequest(url: url.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("Bearer \(Self.adminKey)", forHTTPHeaderField: "Authorization")
        request.httpBody = Data(body.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    /// Replaces the development schema.
    func importSchema(_ text: String) async throws {
        let status = try await admin("PUT", "/admin/1/\(Self.container)/development/schema", body: text)
        guard status == 200 else { throw StratusError(.internalError, "schema import answered \(status)") }
    }

    /// A signed-up user holding the Admin role.
    func signedUpAdmin(_ email: String) async throws -> Container {
        let container = try await signedUp(email)
        let user = try await container.userRecordID().recordName
        let status = try await admin("PUT", "/admin/1/\(Self.container)/development/users/\(user)/roles", body: #"{"roles":["Admin"]}"#)
        guard status == 200 else { throw StratusError(.internalError, "role assignment answered \(status)") }
        return container
    }

    /// A new client of the test container.
    func container(webAuthToken: String? = nil) -> Container {
        Container(identifier: Self.container, serverURL: url, apiToken: apiToken, webAuthToken: webAuthToken)
    }

    /// A client with a freshly signed-up user.
    func signedUp(_ email: String, givenName: String? = nil) async throws -> Container {
        let container = container()
        try await container.signUp(email: email, password: "correct horse battery", givenName: givenName)
        return container
    }
}
