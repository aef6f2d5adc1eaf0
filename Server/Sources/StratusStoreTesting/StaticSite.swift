import Foundation

/// A web site of static files on a loopback port of its own (`Server/Tests/Peers/static_site.py`, Python's
/// `http.server`): a web app on another origin than the server's, for browser tests.
public final class StaticSite: Sendable {
    /// `http://127.0.0.1:PORT`, the site's origin.
    public let origin: String
    /// The folder the site serves; tests write its pages.
    public let folder: URL
    private let process: ChildProcess

    private init(origin: String, folder: URL, process: ChildProcess) {
        self.origin = origin
        self.folder = folder
        self.process = process
    }

    /// Serves `pages` (file name → content) from a new temporary folder.
    public static func start(pages: [String: String]) async throws -> StaticSite {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-site-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for (name, content) in pages { try Data(content.utf8).write(to: folder.appendingPathComponent(name)) }
        let process = try ChildProcess(
            "/usr/bin/python3",
            [Repository.path("Server/Tests/Peers/static_site.py"), folder.path, "--parent", "\(ProcessInfo.processInfo.processIdentifier)"],
            output: .pipe, errors: .output
        )
        let firstLine = try await process.firstLine()
        guard firstLine.hasPrefix("ready "), let port = Int(firstLine.dropFirst(6).prefix { $0.isNumber }) else {
            process.killNow()
            throw ChildProcessError("the static site did not start: \(firstLine)")
        }
        return StaticSite(origin: "http://127.0.0.1:\(port)", folder: folder, process: process)
    }

    /// Stops the site and removes its folder.
    public func stop() {
        process.killNow()
        try? FileManager.default.removeItem(at: folder)
    }
}
