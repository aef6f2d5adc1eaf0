import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import StratusAdmin
import StratusBlobs
import ServiceLifecycle
import StratusServer
import StratusStore

/// A Stratus server on a loopback port, in this process, over a fresh store of the current backend
/// (``StoreFactory/current``), for clients that talk HTTP (the SDK, examples).
///
/// ```swift
/// try await LiveTestServer.run { server in
///     let apiToken = try await server.admin.createContainer("iCloud.com.example.App")
///     // ... a client of server.url
/// }
/// ```
public struct LiveTestServer: Sendable {
    public static let adminKey = ServerConfiguration.testAdminKey

    /// Where the server listens, such as `http://127.0.0.1:53127`.
    public let url: URL
    /// The server's store, for checks behind the API.
    public let store: any Store
    /// The admin API, with the server's admin key.
    public var admin: AdminClient { AdminClient(url: url, adminKey: Self.adminKey) }

    /// Runs `body` against a fresh server.
    /// - Parameter configure: changes to the test configuration (admin key, limits, cheap password hashing).
    public static func run(
        factory: StoreFactory = .current, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (LiveTestServer) async throws -> Void
    ) async throws {
        let folder = try TestFolder("stratus-live")
        defer { folder.remove() }
        let store = try await factory.makeStore(folder.path)
        let blobs = try FolderBlobStore(root: URL(fileURLWithPath: folder.path + "/assets"))
        var configuration = ServerConfiguration.forTests()
        configure(&configuration)
        var logger = Logger(label: "stratus-tests")
        logger.logLevel = .critical
        let server = try await buildServer(configuration: configuration, store: store, blobs: blobs, logger: logger)
        let app = Application(
            router: server.router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            services: [store as? any Service].compactMap { $0 } + server.services, logger: logger
        )
        do {
            try await app.test(.live) { client in
                guard let port = client.port, let url = URL(string: "http://127.0.0.1:\(port)") else {
                    throw TestSupportError("the test server has no port")
                }
                try await body(LiveTestServer(url: url, store: store))
            }
        } catch {
            await factory.releaseStore(store, folder.path)
            throw error
        }
        await factory.releaseStore(store, folder.path)
    }
}

/// Why a test server could not be set up.
public struct TestSupportError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
