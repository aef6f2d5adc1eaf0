import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import StratusBlobs
import StratusModel
import StratusServer
import StratusServices
import StratusAdmin
import StratusStore
import StratusStoreTesting
import StratusTestSupport
import Testing

/// An in-process server on a fresh store of the backend the tests run against (``StoreFactory/current``),
/// and helpers to talk to it like a client.
struct TestServer {
    static let adminKey = ServerConfiguration.testAdminKey
    static let container = "iCloud.com.example.Tests"

    /// Runs `body` against a fresh server through Hummingbird's in-process router tester.
    /// - Parameter configure: changes to the test configuration.
    static func run(
        configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: @escaping @Sendable (TestClient) async throws -> Void
    ) async throws {
        let testFolder = try TestFolder("stratus-http")
        defer { testFolder.remove() }
        let folder = testFolder.path
        let store = try await StoreFactory.current.makeStore(folder)
        let blobs = try FolderBlobStore(root: URL(fileURLWithPath: folder + "/assets"))
        var configuration = ServerConfiguration.forTests()
        configure(&configuration)
        let server = try await buildServer(configuration: configuration, store: store, blobs: blobs)
        // The store runs as its service, as in a server: it follows other processes' events and does its chores.
        let app = Application(router: server.router, services: [store as? any Service].compactMap { $0 } + server.services)
        let parts = ServerParts(
            store: store, blobs: blobs, collector: AssetCollector(store: store, blobs: blobs, configuration: configuration, logger: Logger(label: "test"))
        )
        do {
            try await app.test(.router) { client in
                try await body(TestClient(client: client, parts: parts))
            }
        } catch {
            await StoreFactory.current.releaseStore(store, folder)
            throw error
        }
        await StoreFactory.current.releaseStore(store, folder)
    }
}

extension TestServer {
    /// Runs `body` against `count` in-process servers on one fresh store, as nodes sharing a database: each with
    /// its own caches, subscription notifier and background work, and its own name (`node-1`, ...).
    /// - Parameter configureNode: changes to one node's configuration, given its number from 1.
    static func runNodes(
        _ count: Int, configure: (inout ServerConfiguration) -> Void = { _ in }, configureNode: (Int, inout ServerConfiguration) -> Void = { _, _ in },
        _ body: @escaping @Sendable ([TestClient]) async throws -> Void
    ) async throws {
        let testFolder = try TestFolder("stratus-http")
        defer { testFolder.remove() }
        let folder = testFolder.path
        let store = try await StoreFactory.current.makeStore(folder)
        do {
            let blobs = try FolderBlobStore(root: URL(fileURLWithPath: folder + "/assets"))
            var built: [(responder: RouterResponder<StratusRequestContext>, services: [any Service], parts: ServerParts)] = []
            for index in 1...count {
                var configuration = ServerConfiguration.forTests()
                configure(&configuration)
                configureNode(index, &configuration)
                configuration.nodeName = "node-\(index)"
                let parts = ServerParts(
                    store: store, blobs: blobs, collector: AssetCollector(store: store, blobs: blobs, configuration: configuration, logger: Logger(label: "test"))
                )
                let server = try await buildServer(configuration: configuration, store: store, blobs: blobs)
                built.append((server.router.buildResponder(), server.services, parts))
            }
            let nodes = built
            @Sendable func nest(_ index: Int, _ clients: [TestClient]) async throws {
                guard index < nodes.count else { return try await body(clients) }
                // The nodes share one store, which runs as a service once, beside the first node.
                let services = (index == 0 ? [store as? any Service].compactMap { $0 } : []) + nodes[index].services
                try await Application(responder: nodes[index].responder, services: services).test(.router) { client in
                    try await nest(index + 1, clients + [TestClient(client: client, parts: nodes[index].parts)])
                }
            }
            try await nest(0, [])
        } catch {
            await StoreFactory.current.releaseStore(store, folder)
            throw error
        }
        await StoreFactory.current.releaseStore(store, folder)
    }
}

extension TestClient {
    /// Waits until at least `count` long polls or event streams are held open on this server (its
    /// `stratus_notification_listeners` gauge), so that a save made next wakes them rather than racing them.
    func waitForNotificationListeners(_ count: Int = 1) async throws {
        var seen = ""
        try await Polling.until("\(count) notification listener(s)", within: 60, every: .milliseconds(20)) {
            let metrics = try await send(.get, "/metrics").json.stringValue ?? ""
            seen = MetricsText.line(of: "stratus_notification_listeners", in: metrics) ?? ""
            return (MetricsText.value(of: "stratus_notification_listeners", in: metrics) ?? 0) >= Double(count)
        } describe: {
            seen.isEmpty ? "no stratus_notification_listeners in /metrics" : seen
        }
    }
}

/// The server's insides, for tests that check storage or run background work themselves.
struct ServerParts: Sendable {
    let store: any Store
    let blobs: FolderBlobStore
    let collector: AssetCollector

    /// Names of the committed blobs and of the uploads in progress.
    func blobFiles() -> (blobs: [String], uploads: [String]) {
        let manager = FileManager.default
        let blobsFolder = blobs.root.appendingPathComponent("blobs").path
        let committed = (manager.subpaths(atPath: blobsFolder) ?? []).filter { $0.contains("/") }
        let uploads = (try? manager.contentsOfDirectory(atPath: blobs.root.appendingPathComponent("uploads").path)) ?? []
        return (committed, uploads)
    }
}

/// A response's status and JSON body.
struct Reply: Sendable {
    var status: Int
    var json: JSONValue
    var headers: HTTPFields

    subscript(key: String) -> JSONValue? { json.objectValue?[key] }
    var errorCode: String? {
        if case .string(let code)? = self["serverErrorCode"] { return code }
        return nil
    }
    var records: [[String: JSONValue]] {
        guard case .array(let items)? = self["records"] else { return [] }
        return items.compactMap(\.objectValue)
    }
}

/// Client-side helpers over Hummingbird's test client.
struct TestClient: Sendable {
    let client: any TestClientProtocol
    let parts: ServerParts

    func send(_ method: HTTPRequest.Method, _ path: String, body: String? = nil, headers: HTTPFields = [:]) async throws -> Reply {
        let buffer = body.map { ByteBuffer(string: $0) }
        return try await client.execute(uri: path, method: method, headers: headers, body: buffer) { response in
            let bytes = Data(buffer: response.body)
            let json = bytes.isEmpty ? JSONValue.null : (try? JSONDecoder().decode(JSONValue.self, from: bytes)) ?? .string(String(decoding: bytes, as: UTF8.self))
            return Reply(status: Int(response.status.code), json: json, headers: response.headers)
        }
    }

    /// Sends raw bytes; the reply's body is kept as `bytes`.
    func sendBytes(_ method: HTTPRequest.Method, _ path: String, _ bytes: [UInt8] = [], headers: HTTPFields = [:]) async throws -> (Reply, [UInt8]) {
        try await client.execute(uri: path, method: method, headers: headers, body: bytes.isEmpty ? nil : ByteBuffer(bytes: bytes)) { response in
            let data = Data(buffer: response.body)
            let json = (try? JSONDecoder().decode(JSONValue.self, from: data)) ?? .null
            return (Reply(status: Int(response.status.code), json: json, headers: response.headers), Array(data))
        }
    }

    func send(_ method: HTTPRequest.Method, _ path: String, json: JSONValue, headers: HTTPFields = [:]) async throws -> Reply {
        var writer = JSONWriter()
        json.write(to: &writer)
        return try await send(method, path, body: writer.text, headers: headers)
    }

    /// Waits until every committed record change has been matched to subscriptions: matching runs just after a
    /// save returns, so a test that reads notifications without waiting for one first calls this.
    func recordChangesMatched(within seconds: Double = 10) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while try await !parts.store.pendingRecordEvents(limit: 1).isEmpty {
            guard ContinuousClock.now < deadline else { throw TestFailure("record changes still unmatched after \(seconds) s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// The admin key's header, for tests of the admin API itself.
    var admin: HTTPFields { [.authorization: "Bearer \(TestServer.adminKey)"] }

    /// The admin API, for setting a test up.
    var adminClient: AdminClient { AdminClient(transport: RouterTransport(client: client), adminKey: TestServer.adminKey) }

    /// Creates the test container and returns its API token.
    func createContainer(_ id: String = TestServer.container) async throws -> String {
        try await adminClient.createContainer(id)
    }

    /// Signs up a user and returns a session for them.
    func signUp(_ email: String, token: String, environment: String = "development") async throws -> UserSession {
        let reply = try await send(
            .post, "/auth/1/\(TestServer.container)/\(environment)/signup?ckAPIToken=\(token)",
            body: #"{"emailAddress":"\#(email)","password":"correct horse","givenName":"Test"}"#
        )
        guard reply.status == 201, case .string(let webToken)? = reply["ckWebAuthToken"], case .string(let user)? = reply["userRecordName"] else {
            throw TestFailure("sign-up failed: \(reply.status) \(reply.json)")
        }
        return UserSession(client: self, apiToken: token, webAuthToken: webToken, userRecordName: user)
    }
}

/// A signed-in user talking to one environment.
struct UserSession: Sendable {
    let client: TestClient
    let apiToken: String
    var webAuthToken: String?
    let userRecordName: String
    var environment = "development"

    var query: String {
        var query = "ckAPIToken=\(apiToken)"
        if let webAuthToken {
            query += "&ckWebAuthToken=" + webAuthToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }
        return query
    }

    func path(_ database: String, _ operation: String) -> String {
        "/database/1/\(TestServer.container)/\(environment)/\(database)/\(operation)?\(query)"
    }

    func post(_ database: String, _ operation: String, _ body: String) async throws -> Reply {
        try await client.send(.post, path(database, operation), body: body)
    }

    func get(_ database: String, _ operation: String) async throws -> Reply {
        try await client.send(.get, path(database, operation))
    }

    /// The same user without a web auth token.
    var anonymous: UserSession {
        var copy = self
        copy.webAuthToken = nil
        return copy
    }

    func inEnvironment(_ environment: String) -> UserSession {
        var copy = self
        copy.environment = environment
        return copy
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
