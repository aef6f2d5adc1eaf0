import Foundation

/// A real OpenID Connect provider for tests: Debian's `glewlwyd` on a free loopback port, set up by
/// `Tests/Peers/openid_provider.py` with a confidential client (its redirect URIs the test's) and a user who may
/// sign in to it.
///
/// ```swift
/// guard let provider = try await OpenIDProviderPeer.start(redirectURIs: [callback]) else { return }
/// defer { provider.stop() }
/// // ... configure a container with provider.issuer, provider.clientID and provider.clientSecret ...
/// ```
public final class OpenIDProviderPeer: Sendable {
    /// What the peer printed once ready.
    public struct Details: Sendable, Decodable {
        public var issuer: String
        public var clientID: String
        public var clientSecret: String
        public var username: String
        public var password: String
        public var email: String
    }

    public let details: Details
    public var issuer: String { details.issuer }
    /// Where glewlwyd keeps its database, configuration and log.
    public let folder: String
    private let process: ChildProcess

    private init(details: Details, folder: String, process: ChildProcess) {
        self.details = details
        self.folder = folder
        self.process = process
    }

    /// Starts a provider. Under CI (`CI=true`) a missing glewlwyd fails the test, as `.ci/run` installs it; elsewhere
    /// the test does not run, and says why.
    public static func start(redirectURIs: [String]) async throws -> OpenIDProviderPeer? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/glewlwyd") else {
            let reason = "glewlwyd is not installed (apt-get install glewlwyd; .ci/run does)"
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw ChildProcessError(reason) }
            print("not run: \(reason)")
            return nil
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-oidc-\(UUID().uuidString)").path
        let process = try ChildProcess(
            "/usr/bin/python3",
            [Repository.path("Server/Tests/Peers/openid_provider.py"), folder, "--parent", "\(ProcessInfo.processInfo.processIdentifier)"]
                + redirectURIs.flatMap { ["--redirect-uri", $0] },
            output: .pipe, errors: .output
        )
        // The first line is "ready {json}", or what went wrong.
        let firstLine = try await process.firstLine()
        guard firstLine.hasPrefix("ready "), let details = try? JSONDecoder().decode(Details.self, from: Data(firstLine.dropFirst(6).utf8)) else {
            process.terminate()
            throw ChildProcessError("the OpenID provider did not start: \(firstLine)")
        }
        return OpenIDProviderPeer(details: details, folder: folder, process: process)
    }

    /// What glewlwyd logged, for a failing test to print.
    public func log() -> String {
        (try? String(contentsOfFile: folder + "/glewlwyd.log", encoding: .utf8)) ?? ""
    }

    /// Stops the provider (the peer stops glewlwyd first) and removes its folder.
    public func stop() {
        process.terminate()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
