import Foundation
import StratusStoreTesting

/// nginx in front of a cluster's nodes, configured with the site file the deployment docs give
/// (`deploy/nginx/stratus.conf`), its example nodes replaced by the test's.
final class NginxProxy: Sendable {
    let port: Int
    let folder: String
    private let child: ChildProcess

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The nginx executable; `nil` when it is not installed outside CI (under CI, where `.ci/run` installs it,
    /// that fails the test).
    static func executable() throws -> String? {
        if let found = Loopback.findExecutable("nginx") { return found }
        let reason = "nginx is not installed (apt-get install nginx; .ci/run does)"
        if ProcessInfo.processInfo.environment["CI"] == "true" { throw E2EFailure(reason) }
        print("not run: \(reason)")
        return nil
    }

    /// The repository's site configuration.
    static var siteConfiguration: String {
        get throws {
            try String(contentsOfFile: Repository.path("deploy/nginx/stratus.conf"), encoding: .utf8)
        }
    }

    /// Starts nginx on `port` (held by a ``Loopback/PortReservation``, so it listens with `reuseport`), sending
    /// requests to the nodes on `upstreams` in turn.
    init(executable: String, port: Int, upstreams: [Int]) throws {
        self.port = port
        folder = EndToEndTests.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var site = try Self.siteConfiguration
        let example = try Regex(#"\n\s*server 10\.0\.0\.\d+:8080([^;]*);"#)
        let suffix = site.firstMatch(of: example).map { String($0.output[1].substring ?? "") } ?? ""
        site = site.replacing(example, with: "")
        let servers = upstreams.map { "\n    server 127.0.0.1:\($0)\(suffix);" }.joined()
        site = site.replacingOccurrences(of: "upstream stratus_nodes {", with: "upstream stratus_nodes {" + servers)
        site = site.replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(port) reuseport;")
        try site.write(toFile: folder + "/stratus.conf", atomically: true, encoding: .utf8)
        let main = """
            daemon off;
            worker_processes 1;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log warn;
            events { worker_connections 1024; }
            http {
                access_log off;
                client_body_temp_path \(folder)/body;
                proxy_temp_path \(folder)/proxy;
                fastcgi_temp_path \(folder)/fastcgi;
                uwsgi_temp_path \(folder)/uwsgi;
                scgi_temp_path \(folder)/scgi;
                include \(folder)/stratus.conf;
            }
            """
        try main.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        // Workers run as the user that starts nginx's master (a root master would switch them to nobody, who
        // could not use the test's folder).
        let asRoot = getuid() == 0 ? ["-g", "user root;"] : []
        child = try ChildProcess(executable, ["-p", folder, "-e", folder + "/error.log", "-c", folder + "/nginx.conf"] + asRoot, output: .discard)
        let deadline = Date().addingTimeInterval(15)
        while !Loopback.isListening(port: port) {
            guard Date() < deadline, child.isRunning else {
                child.killNow()
                throw E2EFailure("nginx did not start: \(errorLog.suffix(800))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// What nginx logged (warnings and errors).
    var errorLog: String { (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? "" }

    /// Stops nginx and removes its folder.
    func stop() {
        child.terminate()
        try? FileManager.default.removeItem(atPath: folder)
    }
}
