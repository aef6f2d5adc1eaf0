import Foundation
import StratusModel
import Synchronization

/// Drives a running Stratus server over loopback HTTP with concurrent clients.
///
/// Every scenario is reported beside `/healthz`, measured in the same run, so that figures taken on a
/// noisy, shared machine can be compared as ratios.
public struct Benchmark: Sendable {
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var adminKey: String
        /// How long each timed scenario runs.
        public var seconds: Double
        /// How many records the query and sync scenarios run over.
        public var datasetSize: Int
        /// The server's process id, to sample its memory; `nil` to skip.
        public var serverPID: Int32?
        /// Where clients waiting for notifications connect, when not to the server saves go to: another node of the
        /// same cluster, to time a notification crossing from one node to another.
        public var listenHost: String?
        public var listenPort: Int?
        /// Only the `/healthz` baseline and the notification scenarios.
        public var notificationsOnly = false
        /// Only the `/healthz` baseline, the seeding of the dataset, its full sync and its first sync into a local store.
        public var syncOnly = false
        /// Only the `/healthz` baseline and webhooks' delivery latency.
        public var webhooksOnly = false
        /// Only the `/healthz` baseline and creates with and without a `beforeSave` function.
        public var hooksOnly = false
        /// Only an app's offline saves into its local store beside plain SQLite (no server needed).
        public var offlineSavesOnly = false
        /// How many records the offline saves scenario saves each way.
        public var offlineSaves = 10_000

        public init(host: String, port: Int, adminKey: String, seconds: Double = 5, datasetSize: Int = 100_000, serverPID: Int32? = nil) {
            self.host = host
            self.port = port
            self.adminKey = adminKey
            self.seconds = seconds
            self.datasetSize = datasetSize
            self.serverPID = serverPID
        }
    }

    let options: Options
    let log: @Sendable (String) -> Void

    public init(options: Options, log: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.log = log
    }

    /// Runs every scenario and returns their summaries, `/healthz` first.
    public func run() async throws -> BenchmarkReport {
        if options.offlineSavesOnly {
            var report = BenchmarkReport(results: [], peakServerMemoryBytes: nil)
            report.offlineSaves = try await offlineSaves()
            return report
        }
        let memory = MemorySampler(pid: options.serverPID)
        let session = try await BenchSession.prepare(options)
        let zonePath = session.path("private", "records/modify")
        var results: [LatencySummary] = []

        log("healthz baseline (16 clients)...")
        let host = options.host
        results.append(try await timed("GET /healthz (16 clients)", clients: 16) { _ in
            RequestBytes.make("GET", "/healthz", host: host)
        })
        if options.notificationsOnly {
            results += try await NotificationLatency(options: options, session: session).run(log: log)
            return BenchmarkReport(results: results, peakServerMemoryBytes: memory.peakBytes)
        }
        if options.webhooksOnly {
            results += try await WebhookLatency(options: options, session: session).run(log: log)
            return BenchmarkReport(results: results, peakServerMemoryBytes: memory.peakBytes)
        }
        if options.hooksOnly {
            results += try await hookedCreates(session)
            return BenchmarkReport(results: results, peakServerMemoryBytes: memory.peakBytes)
        }
        for clients in [1, 16] where !options.syncOnly {
            log("single-record creates (\(clients) client\(clients == 1 ? "" : "s"))...")
            results.append(try await timed("create 1 record (\(clients) client\(clients == 1 ? "" : "s"))", clients: clients) { counter in
                let body = #"{"zoneID":{"zoneName":"Creates"},"operations":[{"operationType":"create","record":{"recordType":"Event","fields":{"seq":{"value":\#(counter)},"title":{"value":"event \#(counter)"}}}}]}"#
                return RequestBytes.make("POST", zonePath, host: host, body: body)
            })
        }

        log("seeding \(options.datasetSize) records in 200-record batches (4 clients)...")
        let batches = options.datasetSize / 200
        results.append(try await counted("modify 200-record batch (4 clients)", clients: 4, total: batches, unitsPerRequest: 200) { batch in
            let operations = (0..<200).map { offset -> String in
                let index = batch * 200 + offset
                return #"{"operationType":"create","record":{"recordName":"r\#(index)","recordType":"Item","fields":{"bucket":{"value":\#(index % (options.datasetSize / 50))},"cat":{"value":"c\#(index % 10)"},"n":{"value":\#(index)},"title":{"value":"Record number \#(index)"}}}}"#
            }
            let body = #"{"zoneID":{"zoneName":"Dataset"},"operations":[\#(operations.joined(separator: ","))]}"#
            return RequestBytes.make("POST", zonePath, host: host, body: body)
        })

        if options.syncOnly { return try await syncs(session, results: results, memory: memory) }
        results += try await hookedCreates(session)

        log("lookups by name (16 clients)...")
        let lookupPath = session.path("private", "records/lookup")
        results.append(try await timed("lookup 1 record by name (16 clients)", clients: 16) { counter in
            let body = #"{"zoneID":{"zoneName":"Dataset"},"records":[{"recordName":"r\#((counter &* 7919) % options.datasetSize)"}]}"#
            return RequestBytes.make("POST", lookupPath, host: host, body: body)
        })
        log("indexed query, 50 of \(options.datasetSize) records (16 clients)...")
        let queryPath = session.path("private", "records/query")
        results.append(try await timed("query 50 of \(options.datasetSize) by index (16 clients)", clients: 16, unitsPerRequest: 50) { counter in
            let body = #"{"zoneID":{"zoneName":"Dataset"},"query":{"recordType":"Item","filterBy":[{"comparator":"EQUALS","fieldName":"bucket","fieldValue":{"value":\#(counter % (options.datasetSize / 50))}}]}}"#
            return RequestBytes.make("POST", queryPath, host: host, body: body)
        })

        // The query apps run most: the current items of one kind, newest first. A tenth of the records have
        // cat = 'c3'; a page is 50 of them.
        log("filtered, sorted query: cat = 'c3' AND n > R, n descending, 50 of \(options.datasetSize) (16 clients)...")
        results.append(try await timed("query cat = 'c3' AND n > R sorted, 50 of \(options.datasetSize) (16 clients)", clients: 16, unitsPerRequest: 50) { counter in
            let floor = (counter &* 7919) % (options.datasetSize / 2)
            let body = #"{"zoneID":{"zoneName":"Dataset"},"resultsLimit":50,"query":{"recordType":"Item","filterBy":[{"comparator":"EQUALS","fieldName":"cat","fieldValue":{"value":"c3"}},{"comparator":"GREATER_THAN","fieldName":"n","fieldValue":{"value":\#(floor)}}],"sortBy":[{"fieldName":"n","ascending":false}]}}"#
            return RequestBytes.make("POST", queryPath, host: host, body: body)
        })

        var report = try await syncs(session, results: results, memory: memory)
        report.results += try await NotificationLatency(options: options, session: session).run(log: log)
        report.results += try await WebhookLatency(options: options, session: session).run(log: log)
        return report
    }

    /// Creates with and without a `beforeSave` function that checks two fields, one after the other (16 clients each).
    private func hookedCreates(_ session: BenchSession) async throws -> [LatencySummary] {
        guard try await HookedCreates.prepare(options, session: session, log: log) else { return [] }
        let zonePath = session.path("private", "records/modify")
        let host = options.host
        log("creates without and with a beforeSave function (16 clients)...")
        let plainRequest: @Sendable (Int) -> [UInt8] = { counter in
            let body = #"{"zoneID":{"zoneName":"Creates"},"operations":[{"operationType":"create","record":{"recordType":"Unchecked","fields":{"title":{"value":"event \#(counter)"},"priority":{"value":\#(counter % 6)}}}}]}"#
            return RequestBytes.make("POST", zonePath, host: host, body: body)
        }
        // Both record types exist and both paths are warm before either is timed.
        _ = try await counted("warm-up", clients: 16, total: 256, unitsPerRequest: 1, plainRequest)
        _ = try await counted("warm-up", clients: 16, total: 256, unitsPerRequest: 1) { counter in
            RequestBytes.make("POST", zonePath, host: host, body: HookedCreates.body(counter + 1_000_000))
        }
        let plain = try await timed("create 1 record, no function (16 clients)", clients: 16, plainRequest)
        let hooked = try await timed(HookedCreates.scenario, clients: 16) { counter in
            RequestBytes.make("POST", zonePath, host: host, body: HookedCreates.body(counter))
        }
        return [plain, hooked]
    }

    /// The full `changes/zone` sync of the dataset, then a fresh install's first sync of it into a local store.
    private func syncs(_ session: BenchSession, results: [LatencySummary], memory: MemorySampler) async throws -> BenchmarkReport {
        log("full changes/zone sync of \(options.datasetSize) records (1 client)...")
        let sync = try await fullSync(session)
        log("first sync of \(options.datasetSize) records into a local store (StratusKit's sync engine, SQLite)...")
        let local = try await LocalStoreSync(options: options, session: session).run()
        var report = BenchmarkReport(results: results + [sync, local.summary], peakServerMemoryBytes: memory.peakBytes)
        report.localStoreSync = .init(fullSyncSeconds: sync.seconds, localStoreSeconds: local.summary.seconds, peakMemoryBytes: local.peakMemoryBytes)
        report.offlineSaves = try await offlineSaves()
        return report
    }

    /// An app's offline saves into its local store, one by one and in one batch, beside plain SQLite.
    private func offlineSaves() async throws -> OfflineSaves.Figures {
        log("\(options.offlineSaves) offline saves into a local store, one by one and in one batch, beside plain SQLite...")
        return try await OfflineSaves(count: options.offlineSaves).run()
    }

    /// How much work a scenario does.
    enum Workload: Sendable {
        /// Requests numbered from each client's own offset, until the time is up.
        case duration(Double)
        /// Requests numbered 0..<total, spread over the clients.
        case count(Int)
    }

    private func timed(
        _ name: String, clients: Int, unitsPerRequest: Int = 1,
        _ request: @escaping @Sendable (Int) -> [UInt8]
    ) async throws -> LatencySummary {
        try await drive(name, clients: clients, workload: .duration(options.seconds), unitsPerRequest: unitsPerRequest, request)
    }

    private func counted(
        _ name: String, clients: Int, total: Int, unitsPerRequest: Int,
        _ request: @escaping @Sendable (Int) -> [UInt8]
    ) async throws -> LatencySummary {
        try await drive(name, clients: clients, workload: .count(total), unitsPerRequest: unitsPerRequest, request)
    }

    /// Runs `request` from `clients` keep-alive connections, all driven by one thread. A response that is
    /// not 200 is an error, and so is a batch's 200 answer that carries a per-item `serverErrorCode`.
    private func drive(
        _ name: String, clients: Int, workload: Workload, unitsPerRequest: Int,
        _ request: @escaping @Sendable (Int) -> [UInt8]
    ) async throws -> LatencySummary {
        let start = ContinuousClock.now
        let driver = PollingDriver(host: options.host, port: options.port)
        let checkItemErrors: Bool
        if case .count = workload { checkItemErrors = true } else { checkItemErrors = false }
        let outcome = try await Self.onThreads(1) { _ in
            try driver.run(clients: clients, workload: workload, checkItemErrors: checkItemErrors, request: request)
        }[0]
        return LatencySummary(
            name: name, latencies: outcome.latencies, seconds: Self.seconds(ContinuousClock.now - start),
            unitsPerRequest: unitsPerRequest, errors: outcome.errors
        )
    }

    /// Runs `body` on `count` new threads (blocking socket I/O stays off Swift's cooperative threads) and
    /// returns their results once all have finished.
    static func onThreads<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) async throws -> [T] {
        try await withCheckedThrowingContinuation { continuation in
            let state = Mutex<(results: [T], error: (any Error)?, remaining: Int)>(([], nil, count))
            for index in 0..<count {
                let thread = Thread {
                    let outcome = Result { try body(index) }
                    let finished = state.withLock { state -> Result<[T], any Error>? in
                        switch outcome {
                        case .success(let value): state.results.append(value)
                        case .failure(let error): state.error = state.error ?? error
                        }
                        state.remaining -= 1
                        guard state.remaining == 0 else { return nil }
                        if let error = state.error { return .failure(error) }
                        return .success(state.results)
                    }
                    if let finished { continuation.resume(with: finished) }
                }
                thread.start()
            }
        }
    }

    /// Syncs the whole dataset zone from no token, page by page.
    private func fullSync(_ session: BenchSession) async throws -> LatencySummary {
        let path = session.path("private", "changes/zone")
        let options = self.options
        return try await Self.onThreads(1) { _ in
            let connection = try HTTPConnection(host: options.host, port: options.port)
            var token: String?
            var latencies: [UInt64] = []
            var records = 0
            let start = ContinuousClock.now
            while true {
                let tokenJSON = token.map { #","syncToken":"\#($0)""# } ?? ""
                let body = #"{"zones":[{"zoneID":{"zoneName":"Dataset"}\#(tokenJSON)}]}"#
                let begin = ContinuousClock.now
                let response = try connection.send("POST", path, body: body)
                latencies.append(Self.nanoseconds(ContinuousClock.now - begin))
                let page = try JSONDecoder().decode(SyncPage.self, from: Data(response.body))
                guard let zone = page.zones.first else { throw BenchError("changes/zone answered no zone") }
                records += zone.records.count
                token = zone.syncToken
                if zone.moreComing != true { break }
            }
            let elapsed = Self.seconds(ContinuousClock.now - start)
            return LatencySummary(
                name: "full changes/zone sync (\(records) records)", latencies: latencies, seconds: elapsed,
                unitsPerRequest: latencies.isEmpty ? 0 : records / latencies.count
            )
        }[0]
    }

    private struct SyncPage: Decodable {
        struct Zone: Decodable {
            struct Entry: Decodable { var recordName: String }
            var records: [Entry]
            var syncToken: String?
            var moreComing: Bool?
        }
        var zones: [Zone]
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(duration.components.seconds) * 1_000_000_000 + UInt64(duration.components.attoseconds / 1_000_000_000)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
