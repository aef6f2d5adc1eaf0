import Foundation

/// A real SMTP server for tests (Debian's `python3-aiosmtpd`, driven by `Tests/Peers/smtp_sink.py`) on a free
/// loopback port, keeping every message it accepts, as Python's email package reads it, for the test to look at.
///
/// ```swift
/// guard let sink = try await MailSink.start() else { return }
/// defer { sink.stop() }
/// // ... configure the server with sink.url, make it send ...
/// let mail = try await sink.waitForMessages(count: 1)
/// ```
public final class MailSink: Sendable {
    /// A message as the server received it.
    public struct Message: Sendable, Decodable {
        /// The envelope's sender and recipients.
        public var mailFrom: String
        public var rcptTos: [String]
        /// Whether the session was encrypted (STARTTLS or implicit TLS).
        public var tls: Bool
        /// The user name the client authenticated as, if it did.
        public var authenticated: String?
        /// Headers, decoded.
        public var from: String
        public var to: String
        public var subject: String
        public var messageID: String
        /// The plain-text and HTML parts, decoded.
        public var text: String?
        public var html: String?
    }

    public let port: Int
    /// Where the server keeps the messages (`NNNN.json`).
    public let folder: String
    private let process: ChildProcess

    private init(port: Int, folder: String, process: ChildProcess) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    /// The `--smtp-url` that reaches this server (with `user:password` when it was started with them).
    public func url(credentials: String? = nil, scheme: String = "smtp", host: String = "127.0.0.1", options: String = "") -> String {
        "\(scheme)://\(credentials.map { $0 + "@" } ?? "")\(host):\(port)\(options.isEmpty ? "" : "?" + options)"
    }

    /// Starts a server. Under CI (`CI=true`) a missing aiosmtpd fails the test, as `.ci/run` installs it; elsewhere
    /// the test does not run, and says why.
    /// - Parameter arguments: the peer's options: `--auth USER:PASSWORD`, `--starttls CERT KEY`, `--implicit-tls CERT KEY`,
    ///   `--refuse N`.
    public static func start(_ arguments: [String] = []) async throws -> MailSink? {
        let python = "/usr/bin/python3"
        let check = try await ChildProcess.run(python, ["-c", "import aiosmtpd"])
        guard check.status == 0 else {
            let reason = "aiosmtpd is not installed for \(python) (apt-get install python3-aiosmtpd; .ci/run does)"
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw ChildProcessError(reason) }
            print("not run: \(reason)")
            return nil
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-mail-\(UUID().uuidString)").path
        let process = try ChildProcess(
            python, [Repository.path("Server/Tests/Peers/smtp_sink.py"), folder, "--parent", "\(ProcessInfo.processInfo.processIdentifier)"] + arguments,
            output: .pipe, errors: .output
        )
        // The first line is "ready PORT", or what went wrong.
        let firstLine = try await process.firstLine()
        guard firstLine.hasPrefix("ready "), let port = Int(firstLine.dropFirst(6).prefix { $0.isNumber }) else {
            process.killNow()
            throw ChildProcessError("the SMTP test server did not start: \(firstLine)")
        }
        return MailSink(port: port, folder: folder, process: process)
    }

    /// The messages received so far, oldest first.
    public func messages() throws -> [Message] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { name in
            try JSONDecoder().decode(Message.self, from: Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        }
    }

    /// Waits until at least `count` messages arrived, and returns them all.
    /// - Throws: when they did not arrive within `seconds`, saying what did.
    public func waitForMessages(count: Int, within seconds: Double = 60) async throws -> [Message] {
        var received: [Message] = []
        try await Polling.until("\(count) message(s) arrive", within: seconds, every: .milliseconds(50)) {
            received = try messages()
            return received.count >= count
        } describe: {
            "received: \(received.map { "\($0.to): \($0.subject)" })"
        }
        return received
    }

    /// Stops the server and removes its folder.
    public func stop() {
        process.killNow()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
