import Foundation
import StratusAdmin

/// A fresh container, user and zones created for one benchmark run.
struct BenchSession: Sendable {
    var containerID: String
    var query: String
    /// The tokens in `query`, for clients that make their own URLs (StratusKit).
    var apiToken: String
    var webAuthToken: String

    func path(_ database: String, _ operation: String) -> String {
        "/database/1/\(containerID)/development/\(database)/\(operation)?\(query)"
    }

    static func prepare(_ options: Benchmark.Options) async throws -> BenchSession {
        let containerID = "iCloud.bench.run\(UInt32.random(in: 0...UInt32.max))"
        guard let url = URL(string: "http://\(options.host):\(options.port)") else { throw BenchError("no server address") }
        let admin = AdminClient(url: url, adminKey: options.adminKey)
        let apiToken: String
        do {
            apiToken = try await admin.createContainer(containerID)
            // Declared up front, as an app would: the dataset's queries need their indexes from the start.
            try await admin.importSchema(Self.schema, container: containerID)
        } catch {
            throw BenchError("could not set up the benchmark container (\(error)); is --admin-key right?")
        }
        return try await Benchmark.onThreads(1) { _ in
            let connection = try HTTPConnection(host: options.host, port: options.port)
            let signedUp = try connection.send(
                "POST", "/auth/1/\(containerID)/development/signup?ckAPIToken=\(apiToken)",
                body: #"{"emailAddress":"bench@example.com","password":"benchmark password"}"#
            )
            guard signedUp.status == 201, let webToken = try Self.string("ckWebAuthToken", in: signedUp.body) else {
                throw BenchError("could not sign up (status \(signedUp.status))")
            }
            let encoded = webToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? webToken
            let session = BenchSession(
                containerID: containerID, query: "ckAPIToken=\(apiToken)&ckWebAuthToken=\(encoded)", apiToken: apiToken, webAuthToken: webToken
            )
            let zones = try connection.send(
                "POST", session.path("private", "zones/modify"),
                body: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Creates"}}},{"operationType":"create","zone":{"zoneID":{"zoneName":"Dataset"}}}]}"#
            )
            guard zones.status == 200 else { throw BenchError("could not create zones (status \(zones.status))") }
            return session
        }[0]
    }

    /// The schema of the benchmark's record types.
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Event (seq INT64, title STRING, GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
            RECORD TYPE Item (bucket INT64 QUERYABLE, cat STRING QUERYABLE, n INT64 SORTABLE, title STRING, INDEX (cat, n),
                GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
            RECORD TYPE Ping (n INT64, GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
        """

    private static func string(_ key: String, in body: [UInt8]) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]
        return object?[key] as? String
    }
}

/// Reads a process's peak resident memory from `/proc` (Linux); the kernel keeps the high-water mark, so
/// one reading at the end covers the whole run.
struct MemorySampler: Sendable {
    let pid: Int32?

    /// Starts the high-water mark again from the current resident memory (Linux's `clear_refs`), so that the
    /// next ``peakBytes`` is the peak of what runs in between.
    func resetPeak() {
        guard let pid else { return }
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/\(pid)/clear_refs"))
    }

    /// The process's high-water mark of resident memory so far, in bytes.
    var peakBytes: Int? {
        guard let pid, let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").compactMap { Int($0) }.first
            return digits.map { $0 * 1024 }
        }
        return nil
    }
}
