import Foundation
import StratusStoreTesting

/// The deployment of docs/deployment.md on loopback: one PostgreSQL database, one SeaweedFS bucket prefix,
/// `count` `stratus serve` nodes sharing nothing else (each with a data folder of its own), and nginx in front.
final class Cluster: Sendable {
    static let adminKey = ServerProcess.adminKey

    let database: PostgreSQLServer.TestDatabase
    let nodes: [ServerProcess]
    let proxy: NginxProxy
    /// Requests through the proxy, as clients send them.
    let front: ServerProcess
    private let folders: [String]

    /// Starts the cluster; `nil` when PostgreSQL, SeaweedFS or nginx is missing outside CI.
    static func start(nodes count: Int, name: String) async throws -> Cluster? {
        guard let nginx = try NginxProxy.executable(), let storage = try await S3TestStorage.make(name),
            let database = try await PostgreSQLServer.databaseForTest()
        else { return nil }
        // Held until nginx listens on it, so that no server or connection started meanwhile is given it.
        let proxyPort = try Loopback.reservePort()
        defer { proxyPort.release() }
        var nodes: [ServerProcess] = []
        var folders: [String] = []
        do {
            for index in 1...count {
                let folder = EndToEndTests.temporaryFolder()
                folders.append(folder)
                let node = ServerProcess(
                    dataFolder: folder,
                    arguments: [
                        "--database", database.url, "--database-pool-size", "4", "--quiet", "--node-name", "node-\(index)",
                        "--public-url", "http://127.0.0.1:\(proxyPort.port)", "--trust-forwarded-for", "--max-connections-per-address", "10000",
                        "--courier-wait", "5",
                    ] + storage.serveArguments,
                    backend: .sqlite
                )
                try await node.start()
                nodes.append(node)
            }
            let proxy = try NginxProxy(executable: nginx, port: proxyPort.port, upstreams: nodes.map(\.port))
            return Cluster(database: database, nodes: nodes, proxy: proxy, folders: folders)
        } catch {
            for node in nodes { node.stop() }
            for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
            await database.remove()
            throw error
        }
    }

    private init(database: PostgreSQLServer.TestDatabase, nodes: [ServerProcess], proxy: NginxProxy, folders: [String]) {
        self.database = database
        self.nodes = nodes
        self.proxy = proxy
        self.folders = folders
        front = ServerProcess(attachedTo: proxy.baseURL)
    }

    /// Each node's address, whether it still runs, and the end of its output; nginx's errors: for a failing test.
    var nodeReport: String {
        let nodes = nodes.enumerated().map { index, node in
            "node-\(index + 1) at \(node.baseURL) \(node.isRunning ? "running" : "exited"):\n\(node.recentOutput.suffix(1_500))"
        }
        return (nodes + ["nginx at \(proxy.baseURL): \(proxy.errorLog.suffix(1_500))"]).joined(separator: "\n")
    }

    /// Stops nginx and every node still running, and removes their folders and the database.
    func stop() async {
        proxy.stop()
        for node in nodes { node.stop() }
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
        await database.remove()
    }
}
