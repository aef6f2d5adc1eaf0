import Foundation

/// How long a notification takes from a record save to a client: through a courier long poll, and
/// through a server-sent event stream, with 1 and with 1,000 subscriptions matching each save.
///
/// Each sample saves one `Ping` record in the private database. A long-poll sample uses a fresh courier
/// token made before the save, so the answer is that save's first notification. A stream sample reads
/// events until that save's arrive, the first timing the delivery and the last the whole fan-out.
///
/// With ``Benchmark/Options/listenHost``, the waiting clients connect to that node while saves go to the server
/// of ``Benchmark/Options/host``: the time a notification takes to cross from one node to another.
struct NotificationLatency {
    let options: Benchmark.Options
    let session: BenchSession

    /// Where waiting clients connect.
    private var listener: (host: String, port: Int) {
        (options.listenHost ?? options.host, options.listenPort ?? options.port)
    }

    /// Said after each scenario's name when clients wait on another node.
    private var crossing: String {
        options.listenHost == nil && options.listenPort == nil ? "" : ", saved on one node, waited for on another"
    }

    func run(log: @escaping @Sendable (String) -> Void) async throws -> [LatencySummary] {
        let options = self.options
        let session = self.session
        return try await Benchmark.onThreads(1) { _ in
            let setup = try HTTPConnection(host: options.host, port: options.port)
            var results: [LatencySummary] = []
            var subscribed = 0
            for subscribers in [1, 1_000] {
                log("notification latency, \(subscribers) matching subscription\(subscribers == 1 ? "" : "s")...")
                while subscribed < subscribers {
                    let count = min(200, subscribers - subscribed)
                    let operations = (subscribed..<subscribed + count).map { index in
                        #"{"operationType":"create","subscription":{"subscriptionID":"ping-\#(index)","subscriptionType":"query","query":{"recordType":"Ping"},"notificationInfo":{"additionalFields":["n"],"shouldSendContentAvailable":true}}}"#
                    }
                    let reply = try setup.send("POST", session.path("private", "subscriptions/modify"), body: #"{"operations":[\#(operations.joined(separator: ","))]}"#)
                    guard reply.status == 200 else { throw BenchError("could not subscribe (status \(reply.status))") }
                    subscribed += count
                }
                let samples = subscribers == 1 ? 200 : 40
                let label = subscribers == 1 ? "1 subscriber" : "\(subscribers) subscribers"
                results.append(try longPoll(samples: samples, label: label, setup: setup))
                results += try stream(samples: samples, label: label, subscribers: subscribers, setup: setup)
            }
            return results
        }[0]
    }

    private func save(_ name: String, on connection: HTTPConnection) throws {
        let body = #"{"zoneID":{"zoneName":"Creates"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Ping","fields":{"n":{"value":1}}}}]}"#
        let reply = try connection.send("POST", session.path("private", "records/modify"), body: body)
        guard reply.status == 200 else { throw BenchError("a save failed (status \(reply.status))") }
    }

    private func longPoll(samples: Int, label: String, setup: HTTPConnection) throws -> LatencySummary {
        let poller = try HTTPConnection(host: listener.host, port: listener.port)
        var latencies: [UInt64] = []
        let start = ContinuousClock.now
        for sample in 0..<samples {
            let token = try setup.send("POST", session.path("private", "tokens/create"), body: #"{"apnsEnvironment":"development"}"#)
            guard let url = try JSONSerialization.jsonObject(with: Data(token.body)) as? [String: Any],
                let courier = (url["webcourierURL"] as? String).flatMap(URLComponents.init(string:))?.percentEncodedPath
            else { throw BenchError("tokens/create answered no courier URL") }
            try poller.begin("GET", courier)
            let saved = ContinuousClock.now
            try save("poll-\(label.count)-\(sample)", on: setup)
            let answer = try poller.readResponse()
            latencies.append(Benchmark.nanoseconds(ContinuousClock.now - saved))
            guard answer.status == 200, !answer.body.isEmpty else { throw BenchError("the courier answered no notification") }
        }
        return LatencySummary(name: "notification via long poll (\(label)\(crossing))", latencies: latencies, seconds: Benchmark.seconds(ContinuousClock.now - start))
    }

    private func stream(samples: Int, label: String, subscribers: Int, setup: HTTPConnection) throws -> [LatencySummary] {
        let listener = try HTTPConnection(host: self.listener.host, port: self.listener.port)
        try listener.begin("GET", "/notifications/1/\(session.containerID)/development/stream?\(session.query)")
        var body = StreamedBody()
        var pending = String(decoding: body.feed(listener.readAvailable()), as: UTF8.self)
        var first: [UInt64] = []
        var all: [UInt64] = []
        let start = ContinuousClock.now
        for sample in 0..<samples {
            let name = "stream-\(subscribers)-\(sample)"
            let saved = ContinuousClock.now
            try save(name, on: setup)
            var seen = 0
            while seen < subscribers {
                while let end = pending.range(of: "\n\n") {
                    let event = pending[..<end.lowerBound]
                    pending = String(pending[end.upperBound...])
                    guard event.contains("\"rid\":\"\(name)\"") else { continue }
                    seen += 1
                    if seen == 1 { first.append(Benchmark.nanoseconds(ContinuousClock.now - saved)) }
                }
                if seen < subscribers {
                    let bytes = listener.readAvailable()
                    guard !bytes.isEmpty else { throw BenchError("the notification stream closed") }
                    pending += String(decoding: body.feed(bytes), as: UTF8.self)
                }
            }
            all.append(Benchmark.nanoseconds(ContinuousClock.now - saved))
        }
        let seconds = Benchmark.seconds(ContinuousClock.now - start)
        var results = [LatencySummary(name: "notification via event stream (\(label)\(crossing))", latencies: first, seconds: seconds)]
        if subscribers > 1 {
            results.append(LatencySummary(name: "all \(subscribers) notifications of a save via event stream", latencies: all, seconds: seconds))
        }
        return results
    }
}
