import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Notifications through a real `stratus serve` process: the chat case over the courier and a stream, and
/// a queue that outlives a crash.
@Suite(.serialized) struct NotificationEndToEndTests {
    static let container = "iCloud.com.example.Chat"

    /// Signs up a user of the chat container.
    static func signUp(_ email: String, apiToken: String, on server: ServerProcess) async throws -> SignedInUser {
        try await SignedInUser.signUp(email, container: container, apiToken: apiToken, on: server)
    }

    static func text(ofEvent data: String?) -> String? {
        guard let data, let json = try? JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any] else { return nil }
        return (((json["ck"] as? [String: Any])?["qry"] as? [String: Any])?["af"] as? [String: Any])?["text"] as? String
    }

    @Test("the chat case: A's courier and stream receive B's message of A's channel within a second, not others; the queue survives kill -9")
    func chat() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--courier-wait", "1"])
        try await server.start()
        let apiToken = try await server.createContainer(Self.container)
        let alice = try await Self.signUp("a@example.com", apiToken: apiToken, on: server)
        let bob = try await Self.signUp("b@example.com", apiToken: apiToken, on: server)
        try await bob.say("welcome", in: "random", name: "seed")
        let courier = try await alice.subscribeToChannel("general")
        let stream = try EventStreamClient(port: server.port, path: "/notifications/1/\(Self.container)/development/stream?\(alice.query)")
        try await server.waitForNotificationListeners()

        // Once B's save is acknowledged, the event arrives within a second, and the courier has it queued.
        try await bob.say("hello", in: "general", name: "m1")
        #expect(Self.text(ofEvent: stream.nextEvent(timeout: 1)) == "hello")
        #expect(try await alice.poll(courier) == "hello")

        try await bob.say("not for you", in: "random", name: "m2")
        #expect(stream.nextEvent(timeout: 0.5) == nil)
        #expect(try await alice.poll(courier) == nil)

        // B's edit arrives as an update (fo 2) and B's deletion as a deletion (fo 3), on both.
        _ = try await bob.post("records/modify", #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"m1","fields":{"text":{"value":"hello, edited"}}}}]}"#)
        let edit = stream.nextEvent(timeout: 1)
        #expect(Self.text(ofEvent: edit) == "hello, edited")
        #expect(edit?.contains(#""fo":2"#) == true)
        #expect(try await alice.poll(courier) == "hello, edited")
        _ = try await bob.post("records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"m1"}}]}"#)
        let deletion = stream.nextEvent(timeout: 1)
        #expect(deletion?.contains(#""fo":3"#) == true)
        #expect(deletion?.contains(#""rid":"m1""#) == true)
        let (status, polled) = try await server.send("GET", courier)
        #expect(status == 200)
        #expect(((polled["ck"] as? [String: Any])?["qry"] as? [String: Any])?["fo"] as? Int == 3)

        // Saved, not yet delivered (perhaps not yet matched), then the server dies: after a restart the queue has
        // it, at the latest once the dead process's matching lease (10 s) has expired.
        try await bob.say("after the crash", in: "general", name: "m3")
        server.kill()
        let restarted = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--courier-wait", "1"])
        try await restarted.start()
        defer { restarted.stop() }
        var delivered: String?
        try await Polling.until("the courier delivers after the restart", within: 30, every: .milliseconds(1)) {
            delivered = try await alice.on(restarted).poll(courier)
            return delivered != nil
        }
        #expect(delivered == "after the crash")
        // A stream resumed from an id gets what came after it.
        let resumed = try EventStreamClient(port: restarted.port, path: "/notifications/1/\(Self.container)/development/stream?\(alice.query)&after=0")
        #expect(Self.text(ofEvent: resumed.nextEvent(timeout: 1)) == "hello")
        #expect(Self.text(ofEvent: resumed.nextEvent(timeout: 1)) == "hello, edited")
        _ = resumed.nextEvent(timeout: 1)
        #expect(Self.text(ofEvent: resumed.nextEvent(timeout: 1)) == "after the crash")
    }
}

/// The chat calls of the end-to-end tests: messages of channels, and subscriptions to them.
extension SignedInUser {
    /// Saves a message of `channel`.
    func say(_ text: String, in channel: String, name: String) async throws {
        _ = try await post("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Message","fields":{"channel":{"value":"\#(channel)"},"text":{"value":"\#(text)"}}}}]}"#)
    }

    /// Subscribes to the messages of `channel` (with their text) and answers the path of a new courier queue.
    func subscribeToChannel(_ channel: String) async throws -> String {
        _ = try await post("subscriptions/modify", #"""
            {"operations":[{"operationType":"create","subscription":{"subscriptionID":"\#(channel)","subscriptionType":"query",
              "query":{"recordType":"Message","filterBy":[{"comparator":"EQUALS","fieldName":"channel","fieldValue":{"value":"\#(channel)"}}]},
              "notificationInfo":{"additionalFields":["text"],"shouldSendContentAvailable":true}}}]}
            """#)
        let created = try await post("tokens/create", #"{"apnsEnvironment":"development"}"#)
        guard let url = created["webcourierURL"] as? String, let courier = URLComponents(string: url)?.percentEncodedPath else {
            throw E2EFailure("tokens/create answered no courier URL: \(created)")
        }
        return courier
    }

    /// Polls a courier path once and answers the payload's `af.text`, or `nil` for an empty answer.
    func poll(_ courier: String) async throws -> String? {
        let (status, json) = try await server.send("GET", courier)
        guard status == 200 else { throw E2EFailure("the courier answered \(status)") }
        return (((json["ck"] as? [String: Any])?["qry"] as? [String: Any])?["af"] as? [String: Any])?["text"] as? String
    }
}
