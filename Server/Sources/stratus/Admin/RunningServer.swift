import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The note a server leaves in its data folder while it runs (`server.json`: its URL and process), so that
/// the admin commands given that folder go through the server instead of opening its files under it.
struct RunningServer: Codable {
    var url: String
    var pid: Int32

    static func path(in folder: DataFolder) -> String { folder.path + "/server.json" }

    /// Notes a server listening on `host`:`port` in this process.
    static func record(host: String, port: Int, in folder: DataFolder) throws {
        let reachable = ["0.0.0.0", "::", ""].contains(host) ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
        let note = RunningServer(url: "http://\(reachable):\(port)", pid: getpid())
        try JSONEncoder().encode(note).write(to: URL(fileURLWithPath: path(in: folder)), options: .atomic)
    }

    /// Removes this process's note, when it is still this process's.
    static func clear(in folder: DataFolder) {
        guard let note = read(folder), note.pid == getpid() else { return }
        try? FileManager.default.removeItem(atPath: path(in: folder))
    }

    /// The server running on the folder: its note names a live process that answers `/healthz`.
    static func find(in folder: DataFolder) async -> RunningServer? {
        guard let note = read(folder), kill(note.pid, 0) == 0, let url = URL(string: note.url + "/healthz") else { return nil }
        var request = URLRequest(url: url)
        request.timeoutInterval = 5
        guard let (_, response) = try? await URLSession.shared.data(for: request), (response as? HTTPURLResponse)?.statusCode == 200 else {
            return nil
        }
        return note
    }

    private static func read(_ folder: DataFolder) -> RunningServer? {
        guard let data = FileManager.default.contents(atPath: path(in: folder)) else { return nil }
        return try? JSONDecoder().decode(RunningServer.self, from: data)
    }
}
