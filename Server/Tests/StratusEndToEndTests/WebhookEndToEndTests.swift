import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Webhooks across two `stratus serve` processes sharing a store: the delivering one killed with SIGKILL under 16
/// writers, and every committed change still delivered, signed, in order per zone, by the other.
@Suite struct WebhookEndToEndTests {
    static let container = "iCloud.com.example.Hooks"

    @Test("kill -9 of the delivering node under 16 writers: every acknowledged change arrives, in each writer's order, from the other node")
    func killTheDeliverer() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let receiver = try WebhookReceiver(failFirst: 3)
        let arguments = ["--quiet", "--webhooks-allow-private"]
        let first = ServerProcess(dataFolder: folder, arguments: arguments)
        try await first.start()
        var firstAlive = true
        defer { if firstAlive { first.stop() } }
        let apiToken = try await first.createContainer(Self.container)
        let made = try await first.admin.send(
            "POST", "/admin/1/\(Self.container)/development/webhooks", body: Data(#"{"url":"\#(receiver.url)","databases":["private"]}"#.utf8)
        )
        let secret = try #require(made.json["secret"] as? String, "\(made.json)")
        let user = try await SignedInUser.signUp("ann@example.com", container: Self.container, apiToken: apiToken, on: first)
        let zones = (0..<4).map { "zone-\($0)" }
        let zoneOperations = zones.map { #"{"operationType":"create","zone":{"zoneID":{"zoneName":"\#($0)"}}}"# }.joined(separator: ",")
        _ = try await user.post("private", "zones/modify", #"{"operations":[\#(zoneOperations)]}"#)
        // The first process delivers: it is the only one when the first event goes out (after three refusals).
        _ = try await user.post("private", "records/modify", #"{"zoneID":{"zoneName":"zone-0"},"operations":[{"operationType":"create","record":{"recordName":"seed","recordType":"Note"}}]}"#)
        try await receiver.waitUntil("the first delivery") { $0.contains { !$0.refused } }

        let second = ServerProcess(dataFolder: folder, arguments: arguments)
        try await second.start()
        defer { second.stop() }
        let writerUser = user.on(second)
        let log = BackupEndToEndTests.WriteLog()
        let writers = (0..<16).map { writer in
            Task {
                var number = 0
                while !log.stop.load(ordering: .relaxed) && number < 60 {
                    let name = "w\(writer)-\(number)"
                    let body = #"{"zoneID":{"zoneName":"zone-\#(writer % 4)"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note","fields":{"n":{"value":\#(number)}}}}]}"#
                    if let (status, _) = try? await writerUser.send("private", "records/modify", body), status == 200 {
                        log.acknowledged.withLock { $0.append((name, ContinuousClock.now)) }
                        number += 1
                    }
                }
            }
        }
        // Once the writers are under way and events flow, the delivering process dies mid-stream.
        try await receiver.waitUntil("deliveries under load") { $0.count >= 40 }
        first.kill()
        firstAlive = false
        for writer in writers { await writer.value }
        log.stop.store(true, ordering: .relaxed)
        let written = log.acknowledged.withLock { $0.map(\.name) }
        #expect(written.count == 16 * 60, "every writer finished through the second process: \(written.count)")

        func deliveredNames() -> [String] {
            receiver.received.filter { !$0.refused }.compactMap { (($0.json["data"] as? [String: Any])?["record"] as? [String: Any])?["recordName"] as? String }
        }
        try await receiver.waitUntil("every acknowledged change delivered", within: 240) { _ in
            Set(deliveredNames()).isSuperset(of: written)
        }
        #expect(receiver.received.allSatisfy { WebhookReceiver.verify($0, secrets: [secret]) }, "every request is signed")
        // In order per zone: each writer's records (one zone, written one after another) arrive in the order written.
        var firstSeen: [String: Int] = [:]
        for (index, name) in deliveredNames().enumerated() where firstSeen[name] == nil { firstSeen[name] = index }
        for writer in 0..<16 {
            let order = (0..<60).compactMap { firstSeen["w\(writer)-\($0)"] }
            #expect(order == order.sorted(), "writer \(writer)'s records arrived out of order: \(order)")
        }
    }
}
