import Crypto
import Foundation
import StratusAdmin
import StratusTestSupport
import Testing

/// Two `stratus serve` processes on one data folder, as two nodes sharing a store: what one changes, the other
/// obeys at once, and notifications cross between them.
@Suite struct SharedStoreEndToEndTests {
    static let container = NotificationEndToEndTests.container

    @Test("a sign-out, a revoked key, a rotated API token and a role change on one process hold at once on the other")
    func securityAcrossProcesses() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await first.start()
        defer { first.stop() }
        let apiToken = try await first.createContainer(Self.container)
        let second = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await second.start()
        defer { second.stop() }

        // Both processes know the session; it ends on the first, and the second refuses it on the next request.
        let alice = try await NotificationEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: first)
        #expect(try await second.send("GET", "/database/1/\(Self.container)/development/public/users/caller?\(alice.query)").0 == 200)
        #expect(try await first.send("POST", "/auth/1/\(Self.container)/development/signout?\(alice.query)").0 == 200)
        #expect(try await second.send("GET", "/database/1/\(Self.container)/development/public/users/caller?\(alice.query)").0 == 401)

        // A key both have verified, revoked on the second: the first refuses it at once.
        let privateKey = P256.Signing.PrivateKey()
        let keyID = try await second.admin.createKey(publicKeyPEM: privateKey.publicKey.pemRepresentation, container: Self.container)
        let signedPath = "/database/1/\(Self.container)/development/public/records/query"
        let query = #"{"query":{"recordType":"Users"}}"#
        #expect(try await first.sendSigned(signedPath, body: query, keyID: keyID, privateKey: privateKey) == 200)
        #expect(try await second.sendSigned(signedPath, body: query, keyID: keyID, privateKey: privateKey) == 200)
        try await second.admin.revokeKey(keyID, container: Self.container)
        #expect(try await first.sendSigned(signedPath, body: query, keyID: keyID, privateKey: privateKey) == 401)

        // The API token rotated on the first: the second refuses the old one at once and takes the new one.
        let bob = try await NotificationEndToEndTests.signUp("bob@example.com", apiToken: apiToken, on: first)
        #expect(try await second.send("GET", "/database/1/\(Self.container)/development/public/users/caller?\(bob.query)").0 == 200)
        let newToken = try await first.admin.rotateAPIToken(container: Self.container)
        #expect(try await second.send("GET", "/database/1/\(Self.container)/development/public/users/caller?\(bob.query)").0 == 401)
        let carol = try await NotificationEndToEndTests.signUp("carol@example.com", apiToken: newToken, on: second)

        // A role granted on the second lets Carol write an admin-only type on the first at once, and taking it
        // away stops her at once.
        let schema = #"DEFINE SCHEMA CREATE ROLE Admin; RECORD TYPE Flag (name STRING, GRANT READ TO "_world", GRANT CREATE, WRITE TO Admin);"#
        try await first.admin.importSchema(schema, container: Self.container)
        let (_, caller) = try await first.send("GET", "/database/1/\(Self.container)/development/public/users/caller?\(carol.query)")
        let carolName = try #require(caller["userRecordName"] as? String)
        func createFlag(_ name: String) async throws -> Int {
            let (status, body) = try await first.send(
                "POST", "/database/1/\(Self.container)/development/public/records/modify?\(carol.query)",
                body: #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Flag","fields":{"name":{"value":"x"}}}}]}"#
            )
            guard status == 200 else { return status }
            return ((body["records"] as? [[String: Any]])?.first?["serverErrorCode"] as? String) == nil ? 200 : 403
        }
        #expect(try await createFlag("f0") == 403)
        try await second.admin.setRoles(["Admin"], of: carolName, container: Self.container)
        #expect(try await createFlag("f1") == 200)
        try await second.admin.setRoles([], of: carolName, container: Self.container)
        #expect(try await createFlag("f2") == 403)
    }

    @Test("a subscription made on one process fires for a save on the other, and wakes a long poll on either")
    func notificationsAcrossProcesses() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--courier-wait", "20"])
        try await first.start()
        defer { first.stop() }
        let apiToken = try await first.createContainer(Self.container)
        let second = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--courier-wait", "20"])
        try await second.start()
        defer { second.stop() }

        let alice = try await NotificationEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: first)
        let bob = try await NotificationEndToEndTests.signUp("bob@example.com", apiToken: apiToken, on: second)
        _ = try await alice.post("subscriptions/modify", #"""
            {"operations":[{"operationType":"create","subscription":{"subscriptionID":"general","subscriptionType":"query",
              "query":{"recordType":"Message","filterBy":[{"comparator":"EQUALS","fieldName":"channel","fieldValue":{"value":"general"}}]},
              "notificationInfo":{"additionalFields":["text"]}}}]}
            """#)
        let created = try await alice.post("tokens/create", #"{"apnsEnvironment":"development"}"#)
        let courierURL = try #require(created["webcourierURL"] as? String)
        let courier = try #require(URLComponents(string: courierURL)).percentEncodedPath

        // The long poll waits on the first process; Bob saves on the second.
        let polled = Task { try await alice.poll(courier) }
        try await first.waitForNotificationListeners()
        try await bob.say("hello", in: "general", name: "m1")
        let saved = ContinuousClock.now
        #expect(try await polled.value == "hello")
        #expect(ContinuousClock.now - saved < .seconds(10), "answered by the wake-up, not by the 20 s wait")

        // The other way round: the poll waits on the second, the save is on the first.
        let pollOnSecond = Task { try await alice.on(second).poll(courier) }
        try await second.waitForNotificationListeners()
        try await bob.on(first).say("again", in: "general", name: "m2")
        #expect(try await pollOnSecond.value == "again")
    }

    @Test("a process stopped gracefully gives up subscription matching, and its successor notifies at once")
    func matchingHandedOverOnShutdown() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--courier-wait", "20"])
        try await first.start()
        let apiToken = try await first.createContainer(Self.container)
        let alice = try await NotificationEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: first)
        _ = try await alice.post("subscriptions/modify", #"""
            {"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"query",
              "query":{"recordType":"Message"},"notificationInfo":{"additionalFields":["text"]}}}]}
            """#)
        let created = try await alice.post("tokens/create", #"{"apnsEnvironment":"development"}"#)
        let courierURL = try #require(created["webcourierURL"] as? String)
        let courier = try #require(URLComponents(string: courierURL)).percentEncodedPath
        // The first process matches a change, so it holds the matching lease (10 s) when it stops.
        try await alice.say("before", in: "general", name: "m1")
        #expect(try await alice.poll(courier) == "before")
        first.stop()

        // The lease is free at once: anyone may take it, though it was taken less than its 10 s ago.
        let store = try await StoreFactory.current.makeStore(folder)
        #expect(try await store.acquireLease("subscription-matching", holder: "test", now: Int64(Date().timeIntervalSince1970 * 1000), duration: 10_000))
        try await store.releaseLease("subscription-matching", holder: "test")

        let second = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--courier-wait", "20"])
        try await second.start()
        defer { second.stop() }
        try await alice.on(second).say("after", in: "general", name: "m2")
        #expect(try await alice.on(second).poll(courier) == "after")
    }
}
