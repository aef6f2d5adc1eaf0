import Foundation
import StratusModel
import StratusStore
@testable import StratusServer
import StratusServices
import StratusTestSupport
import Testing

/// Webhooks end to end in one server: an endpoint made through the admin API, record changes delivered to a real
/// HTTP receiver on loopback, signed, in order per zone, retried while the receiver fails.
@Suite struct WebhookAPITests {
    static func withServer(_ body: @escaping @Sendable (TestClient, UserSession) async throws -> Void) async throws {
        try await TestServer.run(configure: { configuration in
            configuration.webhooksAllowPrivate = true
            configuration.webhookRetryDelays = [0.2]
            configuration.webhookPollInterval = 0.1
        }) { client in
            let token = try await client.createContainer()
            let user = try await client.signUp("ann@example.com", token: token)
            try await body(client, user)
        }
    }

    static func create(_ client: TestClient, _ json: String) async throws -> (id: String, secret: String) {
        let made = try await client.send(.post, "/admin/1/\(TestServer.container)/development/webhooks", body: json, headers: client.admin)
        guard made.status == 201, let id = made.string("id"), let secret = made.string("secret") else { throw TestFailure("webhook: \(made.json)") }
        return (id, secret)
    }

    @Test("record changes arrive signed, with the record, in commit order per zone; failures are retried; the filters hold")
    func deliveredInOrder() async throws {
        let receiver = try WebhookReceiver(failFirst: 2)
        try await Self.withServer { client, user in
            let (id, secret) = try await Self.create(client, #"{"url":"\#(receiver.url)","databases":["private"],"recordTypes":["Note"]}"#)
            #expect(secret.hasPrefix("whsec_"))
            let listed = try await client.send(.get, "/admin/1/\(TestServer.container)/webhooks", headers: client.admin)
            #expect(listed.status == 200 && !"\(listed.json)".contains(secret) && !"\(listed.json)".contains("s1."), "\(listed.json)")

            _ = try await user.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"inbox"}}}]}"#)
            for number in 1...5 {
                let saved = try await user.post(
                    "private", "records/modify",
                    #"{"zoneID":{"zoneName":"inbox"},"operations":[{"operationType":"create","record":{"recordName":"n\#(number)","recordType":"Note","fields":{"n":{"value":\#(number)}}}}]}"#
                )
                #expect(saved.status == 200, "\(saved.json)")
            }
            // Not for this endpoint: another type.
            _ = try await user.post(
                "private", "records/modify",
                #"{"zoneID":{"zoneName":"inbox"},"operations":[{"operationType":"create","record":{"recordName":"t1","recordType":"Task"}}]}"#
            )
            _ = try await user.post(
                "private", "records/modify", #"{"zoneID":{"zoneName":"inbox"},"operations":[{"operationType":"forceDelete","record":{"recordName":"n1"}}]}"#
            )
            try await receiver.waitUntil("six events delivered") { received in received.filter { !$0.refused }.count >= 6 }
            let accepted = receiver.received.filter { !$0.refused }
            #expect(receiver.received.allSatisfy { WebhookReceiver.verify($0, secrets: [secret]) }, "every request is signed")
            let names = accepted.map { (($0.json["data"] as? [String: Any])?["record"] as? [String: Any])?["recordName"] as? String ?? "?" }
            #expect(names == ["n1", "n2", "n3", "n4", "n5", "n1"], "in commit order, after two refusals: \(names)")
            #expect(accepted.map { $0.json["type"] as? String ?? "" } == ["record.created", "record.created", "record.created", "record.created", "record.created", "record.deleted"])
            #expect(receiver.received.prefix(3).map(\.id).allSatisfy { $0 == receiver.received[0].id }, "a retry keeps its webhook-id")
            let data = try #require(accepted.first?.json["data"] as? [String: Any])
            #expect(data["database"] as? String == "private" && (data["zoneID"] as? [String: Any])?["zoneName"] as? String == "inbox", "\(data)")
            #expect(((data["record"] as? [String: Any])?["fields"] as? [String: Any])?["n"] != nil, "the record as the API writes it: \(data)")

            let deliveries = try await client.send(.get, "/admin/1/\(TestServer.container)/webhooks/\(id)/deliveries", headers: client.admin)
            let rows = try #require(deliveries["deliveries"]?.arrayValue, "\(deliveries.json)")
            let oldest = rows.last?.objectValue
            #expect(rows.count == 6 && oldest?["attempts"] == .integer(3) && oldest?["status"] == .string("delivered"), "\(deliveries.json)")
            #expect(oldest?["lastStatus"] == .integer(200) && oldest?["latency"]?.integerValue != nil, "\(deliveries.json)")
        }
    }

    @Test("a rotated secret signs beside the previous one; replays resend with the same ids; a retry by hand; private targets refused by default")
    func rotationReplayAndTargets() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withServer { client, user in
            let (id, first) = try await Self.create(client, #"{"url":"\#(receiver.url)"}"#)
            _ = try await user.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Post"}}]}"#)
            try await receiver.waitUntil("the first event") { $0.count >= 1 }
            let rotated = try await client.send(.post, "/admin/1/\(TestServer.container)/webhooks/\(id)/secret/rotate", headers: client.admin)
            let second = try #require(rotated.string("secret"), "\(rotated.json)")
            _ = try await user.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"p2","recordType":"Post"}}]}"#)
            try await receiver.waitUntil("the second event") { $0.count >= 2 }
            let latest = receiver.received[1]
            #expect(WebhookReceiver.verify(latest, secrets: [second]) && WebhookReceiver.verify(latest, secrets: [first]), "both sign during a rotation")
            #expect(latest.signature.split(separator: " ").count == 2, "\(latest.signature)")

            let replayed = try await client.send(.post, "/admin/1/\(TestServer.container)/webhooks/\(id)/replay", body: #"{"since":0}"#, headers: client.admin)
            #expect(replayed["replayed"] == .integer(2), "\(replayed.json)")
            try await receiver.waitUntil("the replay") { $0.count >= 4 }
            #expect(Set(receiver.received.suffix(2).map(\.id)) == Set(receiver.received.prefix(2).map(\.id)), "replays keep the event ids")

            let deliveries = try await client.send(.get, "/admin/1/\(TestServer.container)/webhooks/\(id)/deliveries?limit=1", headers: client.admin)
            let newest = try #require(deliveries["deliveries"]?.arrayValue?.first?.objectValue?["id"]?.integerValue, "\(deliveries.json)")
            let retried = try await client.send(.post, "/admin/1/\(TestServer.container)/webhooks/\(id)/deliveries/\(newest)/retry", headers: client.admin)
            #expect(retried.status == 200, "\(retried.json)")
            try await receiver.waitUntil("the retry") { $0.count >= 5 }
        }
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let refused = try await client.send(
                .post, "/admin/1/\(TestServer.container)/development/webhooks", body: #"{"url":"\#(receiver.url)"}"#, headers: client.admin
            )
            #expect(refused.status == 400 && (refused.string("reason") ?? "").contains("--webhooks-allow-private"), "\(refused.json)")
            let badType = try await client.send(
                .post, "/admin/1/\(TestServer.container)/development/webhooks", body: #"{"url":"https://example.com/h","eventTypes":["record.exploded"]}"#,
                headers: client.admin
            )
            #expect(badType.status == 400, "\(badType.json)")
        }
    }

    @Test("accounts made and deleted, and shares accepted and left, are sent to the endpoints that want them")
    func accountAndShareEvents() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withServer { client, alice in
            let token = alice.apiToken
            _ = try await Self.create(client, #"{"url":"\#(receiver.url)","eventTypes":["account.created","account.deleted","share.accepted","share.left"]}"#)
            let bob = try await client.signUp("bob@example.com", token: token)
            try await alice.createZone("Trip")
            _ = try await alice.save([#"{"recordName":"trip","recordType":"Trip","fields":{}}"#], zone: "Trip")
            let share = try await alice.share("trip", zone: "Trip", participants: [participant(userRecordName: bob.userRecordName)])
            let guid = try #require(share["shortGUID"]?.stringValue)
            _ = try await bob.shareResults("accept", [guid])
            let left = try await bob.post("shared", "zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":\#(alice.zoneID("Trip"))}}]}"#)
            #expect(left.status == 200, "\(left.json)")
            let deleted = try await client.send(.delete, "/admin/1/\(TestServer.container)/development/users/\(bob.userRecordName)", headers: client.admin)
            #expect(deleted.status == 200, "\(deleted.json)")
            try await receiver.waitUntil("four events") { $0.count >= 4 }
            let types = receiver.received.map { $0.json["type"] as? String ?? "?" }
            #expect(types == ["account.created", "share.accepted", "share.left", "account.deleted"], "saw \(types)")
            let accepted = try #require(receiver.received.first { $0.json["type"] as? String == "share.accepted" }?.json["data"] as? [String: Any])
            #expect(accepted["userRecordName"] as? String == bob.userRecordName && accepted["shareRecordName"] as? String == "share-1", "\(accepted)")
            #expect(receiver.received.allSatisfy { ($0.json["data"] as? [String: Any])?["userRecordName"] as? String == bob.userRecordName })
        }
    }

    @Test("a participant who leaves by deleting the share record is sent as share.left, and fires no subscription")
    func leavingByDeletingTheShare() async throws {
        let receiver = try WebhookReceiver()
        try await Self.withServer { client, alice in
            _ = try await Self.create(client, #"{"url":"\#(receiver.url)","eventTypes":["share.left","record.deleted"]}"#)
            let carol = try await client.signUp("carol@example.com", token: alice.apiToken)
            try await alice.createZone("Party")
            _ = try await alice.save([#"{"recordName":"party","recordType":"Party","fields":{}}"#], zone: "Party")
            let share = try await alice.share("party", zone: "Party", participants: [participant(userRecordName: carol.userRecordName)])
            let guid = try #require(share["shortGUID"]?.stringValue)
            let shareName = try #require(share["recordName"]?.stringValue)
            _ = try await carol.shareResults("accept", [guid])
            let left = try await carol.post(
                "shared", "records/modify",
                #"{"zoneID":\#(alice.zoneID("Party")),"operations":[{"operationType":"forceDelete","record":{"recordName":"\#(shareName)"}}]}"#
            )
            #expect(left.status == 200 && left.records.first?["deleted"] == .bool(true), "\(left.json)")
            try await receiver.waitUntil("the share.left event") { $0.contains { $0.json["type"] as? String == "share.left" } }
            let event = try #require(receiver.received.first { $0.json["type"] as? String == "share.left" })
            let data = try #require(event.json["data"] as? [String: Any])
            #expect(data["userRecordName"] as? String == carol.userRecordName && data["shareRecordName"] as? String == shareName, "\(data)")
            #expect((data["zoneID"] as? [String: Any])?["zoneName"] as? String == "Party", "\(data)")
            #expect(!receiver.received.contains { $0.json["type"] as? String == "record.deleted" }, "the share record itself was not deleted")
        }
    }

    @Test("internal addresses are told from public ones, whatever their form")
    func internalAddresses() {
        for address in ["127.0.0.1", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
                        "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "224.0.0.1"] {
            #expect(WebhookTargets.isInternal(address), "\(address) is internal")
        }
        for address in ["93.184.216.34", "172.32.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"] {
            #expect(!WebhookTargets.isInternal(address), "\(address) is public")
        }
        #expect(WebhookTargets.refusal(of: "ftp://example.com/x", allowPrivate: true) != nil)
        #expect(WebhookTargets.refusal(of: "https://user:pw@example.com/x", allowPrivate: true) != nil)
        #expect(WebhookTargets.refusal(of: "http://127.0.0.1:9/x", allowPrivate: false)?.contains("internal") == true)
    }
}
