#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import StratusAdmin
import Synchronization

/// How long a webhook takes from a record save to the receiver: an endpoint on this process's own loopback receiver
/// (the server must allow loopback targets: `--webhooks-allow-private`), and saves one after another, each timed from
/// its request to the webhook's arrival.
struct WebhookLatency {
    let options: Benchmark.Options
    let session: BenchSession

    func run(log: @escaping @Sendable (String) -> Void) async throws -> [LatencySummary] {
        let receiver = try LoopbackReceiver()
        defer { receiver.stop() }
        guard let url = URL(string: "http://\(options.host):\(options.port)") else { throw BenchError("no server address") }
        let admin = AdminClient(url: url, adminKey: options.adminKey)
        let made = try await admin.send(
            "POST", "/admin/1/\(session.containerID)/development/webhooks",
            json: ["url": "http://127.0.0.1:\(receiver.port)/hooks", "eventTypes": ["record.created"], "recordTypes": ["Hook"]]
        )
        guard made.status == 201 else {
            log("webhook latency: not measured; the server refused a loopback endpoint (start it with --webhooks-allow-private): \(made.status)")
            return []
        }
        log("webhook latency, save to receipt (1 client)...")
        let options = self.options
        let session = self.session
        return try await Benchmark.onThreads(1) { _ in
            let connection = try HTTPConnection(host: options.host, port: options.port)
            var latencies: [UInt64] = []
            let start = ContinuousClock.now
            for sample in 0..<200 {
                let name = "hook-\(sample)"
                let body = #"{"zoneID":{"zoneName":"Creates"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Hook","fields":{"n":{"value":\#(sample)}}}}]}"#
                let sent = ContinuousClock.now
                let reply = try connection.send("POST", session.path("private", "records/modify"), body: body)
                guard reply.status == 200 else { throw BenchError("a save failed (status \(reply.status))") }
                guard let arrived = receiver.wait(for: name, until: sent + .seconds(30)) else {
                    throw BenchError("the webhook for \(name) did not arrive within 30 s")
                }
                latencies.append(Benchmark.nanoseconds(arrived - sent))
            }
            return [LatencySummary(name: "webhook delivery, save to receipt (1 client)", latencies: latencies, seconds: Benchmark.seconds(ContinuousClock.now - start))]
        }[0]
    }
}

/// A minimal HTTP receiver on a loopback port, on a thread of its own: notes when each record's webhook arrives
/// (by the record name in the body) and answers `200`.
private final class LoopbackReceiver: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
    private let stopped = Atomic(false)

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw BenchError("no socket for the webhook receiver") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw BenchError("the webhook receiver could not listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
        listener = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// When the webhook naming `name` arrived, waiting for it until `deadline`.
    func wait(for name: String, until deadline: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        while ContinuousClock.now < deadline {
            if let arrived = arrivals.withLock({ $0[name] }) { return arrived }
            usleep(200)
        }
        return nil
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            if client < 0 { if stopped.load(ordering: .relaxed) { return } else { continue } }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    /// Reads requests on one keep-alive connection, noting each arrival.
    private func serve(_ client: Int32) {
        defer { close(client) }
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { return }
            pending += buffer[0..<count]
            while let request = Self.takeRequest(&pending) {
                let arrived = ContinuousClock.now
                if let name = Self.recordName(in: request) { arrivals.withLock { $0[name] = $0[name] ?? arrived } }
                let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok".utf8)
                _ = reply.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            }
        }
    }

    /// The body of the first complete request in `pending`, removed from it.
    private static func takeRequest(_ pending: inout [UInt8]) -> String? {
        guard let headEnd = pending.firstRange(of: Array("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: pending[..<headEnd.lowerBound], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        guard pending.count >= headEnd.upperBound + length else { return nil }
        let body = String(decoding: pending[headEnd.upperBound..<headEnd.upperBound + length], as: UTF8.self)
        pending.removeFirst(headEnd.upperBound + length)
        return body
    }

    private static func recordName(in body: String) -> String? {
        guard let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return ((json["data"] as? [String: Any])?["record"] as? [String: Any])?["recordName"] as? String
    }
}
