import Crypto
import Foundation
import StratusStoreTesting
import Synchronization
import StratusAdmin
import StratusTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `stratus serve` child process on a free loopback port, over the backend the tests run against
/// (``StoreFactory/current``).
final class ServerProcess: @unchecked Sendable {
    static let adminKey = "e2e-admin-key"
    /// The secrets key of every PostgreSQL node the tests start (nodes of one cluster must share it).
    static let secretsKey = "ZTJlLXNlY3JldHMta2V5LW9mLXRoaXJ0eS10d28tYnk="
    private let started = Mutex<ChildProcess?>(nil)
    private let recent = Mutex("")
    private let recentLogText = Mutex("")
    let dataFolder: String
    private(set) var baseURL = ""

    /// The `stratus` executable built beside the test bundle.
    static var executable: URL {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("stratus")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/stratus")
    }

    /// More `stratus serve` arguments.
    let extraArguments: [String]
    /// The backend the server keeps its records in.
    let backend: StoreFactory
    /// Environment variables the server is started with, beside the test process's own.
    let environment: [String: String]

    init(dataFolder: String, arguments: [String] = [], environment: [String: String] = [:], backend: StoreFactory = .current) {
        self.dataFolder = dataFolder
        extraArguments = arguments
        self.environment = environment
        self.backend = backend
    }

    /// A handle on a server started elsewhere (the proxy in front of a cluster): for its requests only.
    init(attachedTo baseURL: String) {
        dataFolder = ""
        extraArguments = []
        environment = [:]
        backend = .sqlite
        self.baseURL = baseURL
    }

    /// The server's loopback port.
    var port: Int { Int(baseURL.split(separator: ":").last ?? "0") ?? 0 }

    /// Starts the server and waits for its "listening" line, off the tasks' shared threads.
    func start() async throws {
        try await ChildProcess.offload { [self] in try startBlocking() }
    }

    private func startBlocking() throws {
        // On PostgreSQL every node must be given the secrets key; with SQLite the server makes its own in the data folder.
        let secrets = backend.name == "postgres" ? ["--secrets-key", Self.secretsKey] : []
        let arguments = ["serve", "--port", "0", "--data", dataFolder, "--admin-key", Self.adminKey, "--password-rounds", "1000", "--sign-in-pause", "120"]
            + backend.serveArguments(dataFolder) + secrets + extraArguments
        let child = try ChildProcess(Self.executable.path, arguments, environment: environment, output: .pipe, errors: .pipe)
        // The log (standard error) is read on its own, so that it never splits the "listening" line read below.
        if let errors = child.errors { keepReadingLog(errors) }
        started.withLock { $0 = child }
        var buffer = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, let output = child.output {
            let data = output.availableData
            if data.isEmpty { break }
            buffer += String(decoding: data, as: UTF8.self)
            if let range = buffer.range(of: "listening on "), let end = buffer[range.upperBound...].firstIndex(where: { $0 == " " || $0 == "\n" }) {
                baseURL = String(buffer[range.upperBound..<end])
                keepReading(output, after: buffer)
                return
            }
        }
        child.terminate()
        throw E2EFailure("the server did not start (stratus \(arguments.joined(separator: " "))): \(buffer)")
    }

    /// Reads the server's output until it exits, so that a server that logs a lot never waits on a full pipe,
    /// keeping the end of it for ``recentOutput``.
    private func keepReading(_ output: FileHandle, after startup: String) {
        recent.withLock { $0 = startup }
        Thread.detachNewThread { [self] in
            while case let data = output.availableData, !data.isEmpty {
                self.recent.withLock { text in
                    text += String(decoding: data, as: UTF8.self)
                    if text.utf8.count > 16_384 { text = String(text.suffix(8_192)) }
                }
            }
        }
    }

    /// Reads the server's log until it exits, keeping its end for ``recentLog``.
    private func keepReadingLog(_ errors: FileHandle) {
        Thread.detachNewThread { [self] in
            while case let data = errors.availableData, !data.isEmpty {
                self.recentLogText.withLock { text in
                    text += String(decoding: data, as: UTF8.self)
                    if text.utf8.count > 16_384 { text = String(text.suffix(8_192)) }
                }
            }
        }
    }

    /// The end of what the server has written so far, for a failing test's message.
    var recentOutput: String { recent.withLock { $0 } }

    /// The end of the server's log (its standard error) so far.
    var recentLog: String { recentLogText.withLock { $0 } }

    /// Whether the server's process has started and not exited.
    var isRunning: Bool { started.withLock { $0 }?.isRunning ?? false }

    /// The server's process ID (0 before ``start()``).
    var identifier: pid_t { started.withLock { $0?.identifier ?? 0 } }

    /// Kills the process at once, as a crash would (SIGKILL).
    func kill() {
        started.withLock { $0 }?.killNow()
    }

    /// Stops the process gracefully (SIGTERM) and waits for it.
    func stop() {
        started.withLock { $0 }?.terminate()
    }

    /// Sends SIGTERM and waits up to `grace` for the process to exit.
    /// - Returns: its exit status (128 + the signal when a signal ended it), or `nil` when it still ran after
    ///   `grace` (it is then killed).
    func terminate(within grace: Duration) async -> Int32? {
        guard let child = started.withLock({ $0 }) else { return nil }
        child.send(SIGTERM)
        let deadline = ContinuousClock.now + grace
        while child.isRunning && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        guard !child.isRunning else {
            child.killNow()
            return nil
        }
        return await child.exit()
    }

    /// The server's admin API.
    var admin: AdminClient { AdminClient(url: URL(string: baseURL)!, adminKey: Self.adminKey) }

    /// Creates a container through the admin API and returns its API token.
    func createContainer(_ id: String) async throws -> String {
        try await admin.createContainer(id)
    }

    /// Waits until at least `count` long polls or event streams are held open on this node (its
    /// `stratus_notification_listeners` gauge), so that a save made next wakes them rather than racing them.
    func waitForNotificationListeners(_ count: Int = 1) async throws {
        var seen = ""
        try await Polling.until("\(count) notification listener(s) on \(baseURL)", within: 60, every: .milliseconds(20)) {
            var request = URLRequest(url: URL(string: baseURL + "/metrics")!)
            request.httpMethod = "GET"
            let (data, _) = try await URLSession.shared.data(for: request)
            let metrics = String(decoding: data, as: UTF8.self)
            seen = MetricsText.line(of: "stratus_notification_listeners", in: metrics) ?? ""
            return (MetricsText.value(of: "stratus_notification_listeners", in: metrics) ?? 0) >= Double(count)
        } describe: {
            seen.isEmpty ? "no stratus_notification_listeners in /metrics" : seen
        }
    }

    /// Sends a request and returns the status and JSON body.
    func send(_ method: String, _ path: String, body: String? = nil, headers: [String: String] = [:]) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: baseURL + path)!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (status, json)
    }
}

extension ServerProcess {
    /// Sends a request signed with a server-to-server key (`docs/protocol.md#server-to-server-keys`) and returns its status.
    func sendSigned(_ path: String, body: String, keyID: String, privateKey: P256.Signing.PrivateKey) async throws -> Int {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let date = formatter.string(from: Date())
        let hash = Data(SHA256.hash(data: Data(body.utf8))).base64EncodedString()
        let signature = try privateKey.signature(for: Data("\(date):\(hash):\(path)".utf8)).derRepresentation.base64EncodedString()
        return try await send("POST", path, body: body, headers: [
            "X-Apple-CloudKit-Request-KeyID": keyID, "X-Apple-CloudKit-Request-ISO8601Date": date, "X-Apple-CloudKit-Request-SignatureV1": signature,
        ]).0
    }
}

struct E2EFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
