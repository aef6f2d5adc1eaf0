import Foundation
import StratusKit
import Testing

@Suite struct NotificationTests {
    @Test("subscriptions are saved, listed, looked up and deleted")
    func subscriptions() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").publicCloudDatabase
            let subscription = Subscription(
                id: "general", query: Query(recordType: "Message", filter: .field("channel") == "general"), firesOn: [.create, .update],
                notificationInfo: .init(alertBody: "New message", desiredKeys: ["text"])
            )
            let saved = try await database.save(subscription)
            #expect(saved.subscriptionID == "general")
            guard case .query(let query, _, let firesOn, false) = saved.kind else { Issue.record("\(saved.kind)"); return }
            #expect(query.recordType == "Message")
            #expect(firesOn == [.create, .update])
            #expect(saved.notificationInfo?.desiredKeys == ["text"])
            #expect(try await database.allSubscriptions().map(\.subscriptionID) == ["general"])
            #expect(try await database.subscription(for: "general").notificationInfo?.alertBody == "New message")
            try await database.deleteSubscription(withID: "general")
            await #expect { try await database.subscription(for: "general") } throws: { error in
                (error as? StratusError)?.code == .unknownItem
            }
        }
    }

    @Test("notifications() streams what subscriptions fire, and resumes after the last one seen")
    func stream() async throws {
        try await KitTestServer.run { server in
            let ann = try await server.signedUp("ann@example.com")
            let bob = try await server.signedUp("bob@example.com")
            try await ann.publicCloudDatabase.save(Subscription(
                id: "general", query: Query(recordType: "Message", filter: .field("channel") == "general"),
                notificationInfo: .init(desiredKeys: ["text"])
            ))
            func say(_ text: String, _ name: String) async throws {
                var message = Record(recordType: "Message", recordID: Record.ID(recordName: name))
                message["channel"] = "general"
                message["text"] = text
                try await bob.publicCloudDatabase.save(message)
            }
            try await say("hello", "m1")
            // From 0: everything the server keeps for Ann, so the message saved before the stream opened comes first.
            var iterator = ann.notifications(after: 0).makeAsyncIterator()
            let first = try #require(try await iterator.next())
            guard case .query(let recordID, .recordCreated, let fields) = first.kind else { Issue.record("\(first.kind)"); return }
            #expect(recordID.recordName == "m1")
            #expect(fields["text"] == .string("hello"))
            #expect(first.subscriptionID == "general")
            #expect(first.databaseScope == .public)

            // A change while the stream is open arrives on it.
            try await say("again", "m2")
            let second = try #require(try await iterator.next())
            guard case .query(let secondID, _, _) = second.kind else { Issue.record("\(second.kind)"); return }
            #expect(secondID.recordName == "m2")

            // A new stream resuming after the first notification starts with the second.
            var resumed = ann.notifications(after: first.sequenceNumber).makeAsyncIterator()
            #expect(try await resumed.next()?.sequenceNumber == second.sequenceNumber)
        }
    }

    @Test("notificationEvents says when it is connected and dropped, and resumes from a position kept in a file across restarts")
    func eventsAndPosition() async throws {
        try await KitTestServer.run { server in
            let ann = try await server.signedUp("ann@example.com")
            try await ann.privateCloudDatabase.save(Subscription(id: "notes", query: Query(recordType: "Note")))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("kit-position-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            func save(_ name: String) async throws {
                try await ann.privateCloudDatabase.save(Record(recordType: "Note", recordID: Record.ID(recordName: name)))
            }

            // A first run: connected, then a notification; the position is written to the file. The app's task
            // ends at quit, which ends the stream.
            let firstRun = Task {
                var first = ann.notificationEvents(resumingAt: NotificationPosition(file: file, startingAfter: 0)).makeAsyncIterator()
                guard case .connected = try #require(try await first.next()) else { Issue.record("not connected first"); return Int64(-1) }
                try await save("n1")
                guard case .notification(let n1) = try #require(try await first.next()) else { Issue.record("no notification"); return -1 }
                return n1.sequenceNumber
            }
            let n1 = try await firstRun.value
            firstRun.cancel()
            #expect(NotificationPosition(file: file).sequenceNumber == n1)

            // While no stream is open (the app was quit), two more; a relaunch reading the file gets exactly those.
            try await save("n2")
            try await save("n3")
            let relaunch = Task {
                var relaunched = ann.notifications(resumingAt: NotificationPosition(file: file)).makeAsyncIterator()
                return [try await relaunched.next(), try await relaunched.next()].compactMap { $0 }
            }
            let missed = try await relaunch.value
            relaunch.cancel()
            #expect(missed.count == 2 && missed.allSatisfy { $0.sequenceNumber > n1 })
            #expect(NotificationPosition(file: file).sequenceNumber == missed.last?.sequenceNumber)
        }
    }

    @Test("a dropped stream reports disconnected with its wait, then connected again")
    func dropped() async throws {
        let transport = ReplayTransport { _ in [Data(": hello\n\n".utf8)] }
        let container = Container(identifier: "c", serverURL: URL(string: "http://localhost")!, apiToken: "t", webAuthToken: "w", transport: transport)
        var iterator = container.notificationEvents().makeAsyncIterator()
        var seen: [String] = []
        for _ in 0..<4 {
            switch try await iterator.next() {
            case .connected: seen.append("connected")
            case .disconnected(let wait): seen.append("disconnected \(wait)")
            default: seen.append("other")
            }
        }
        #expect(seen == ["connected", "disconnected 0.25", "connected", "disconnected 0.25"])
    }

    // The limit catches a stream that never resumes; it is wide because in a full run, beside hundreds of tests on two
    // cores, the stream's reconnection waits its turn for a long time (runs have taken up to two minutes).
    @Test("server-sent events split across chunks are put back together, and a dropped stream resumes after the last event", .timeLimit(.minutes(5)))
    func eventParsing() async throws {
        let events = "id: 7\nevent: notification\ndata: {\"ck\":{\"met\":{\"sid\":\"s\",\"dbs\":2}}}\n\n: keep-alive\n\nid: 8\ndata: {\"ck\":{\"fet\":{\"sid\":\"z\",\"zid\":\"Notes\",\"dbs\":3}}}\r\n\r\n"
        let resumed = "id: 9\ndata: {\"ck\":{\"met\":{\"sid\":\"s\",\"dbs\":2}}}\n\n"
        let transport = ReplayTransport { url in
            // The first connection replays two events in 5-byte chunks; the reconnection must ask for what follows 8.
            let text = url.query?.contains("after=8") == true ? resumed : events
            return stride(from: 0, to: text.utf8.count, by: 5).map { Data(Array(text.utf8)[$0..<min($0 + 5, text.utf8.count)]) }
        }
        let container = Container(identifier: "c", serverURL: URL(string: "http://localhost")!, apiToken: "t", webAuthToken: "w", transport: transport)
        var iterator = container.notifications().makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.sequenceNumber == 7)
        #expect(first?.kind == .database)
        #expect(first?.databaseScope == .private)
        let second = try await iterator.next()
        #expect(second?.kind == .recordZone(Zone.ID(zoneName: "Notes")))
        #expect(second?.databaseScope == .shared)
        #expect(try await iterator.next()?.sequenceNumber == 9)
    }
}

/// A transport whose stream replays chunks chosen by URL, for parsing tests.
struct ReplayTransport: Transport {
    let chunks: @Sendable (URL) -> [Data]

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        TransportResponse(status: 404, headers: [:], body: Data())
    }

    func stream(_ request: TransportRequest) -> AsyncThrowingStream<Data, any Error> {
        let chunks = chunks(request.url)
        return AsyncThrowingStream { continuation in
            for chunk in chunks { continuation.yield(chunk) }
            continuation.finish()
        }
    }
}
