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
        let proxyPort = try Loopback.freePort()
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
                        "--public-url", "http://127.0.0.1:\(proxyPort)", "--trust-forwarded-for", "--max-connections-per-address", "10000",
                        "--courier-wait", "5",
                    ] + storage.serveArguments,
                    backend: .sqlite
                )
                try await node.start()
                nodes.append(node)
            }
            let proxy = try NginxProxy(executable: nginx, port: proxyPort, upstreams: nodes.map(\.port))
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

    /// Stops nginx and every node still running, and removes their folders and the database.
    func stop() async {
        proxy.stop()
        for node in nodes { node.stop() }
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
        await database.remove()
    }
}
