import Foundation
import StratusStoreTesting
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A node of three dies (`kill -9`) under a 16-client write load through nginx.
@Suite(.serialized) struct ClusterChaosEndToEndTests {
    static let container = NotificationEndToEndTests.container

    /// What the writers were told, by record name: acknowledged, or given up.
    final class Outcomes: Sendable {
        let acknowledged = Mutex<Set<String>>([])
        let retries = Atomic<Int>(0)
        let stop = Atomic<Bool>(false)
    }

    @Test("kill -9 of the node holding the matching lease under 16 writers: they retry on the others, every acknowledged write is there, and each is notified once, by another node")
    func nodeDiesUnderLoad() async throws {
        try await ClusterEndToEndTests.withCluster("cluster-chaos") { cluster in
            let front = cluster.front
            let apiToken = try await front.createContainer(Self.container)
            let alice = try await NotificationEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: front)
            _ = try await alice.post("subscriptions/modify", #"""
                {"operations":[{"operationType":"create","subscription":{"subscriptionID":"load","subscriptionType":"query",
                  "query":{"recordType":"Event","filterBy":[{"comparator":"EQUALS","fieldName":"kind","fieldValue":{"value":"load"}}]},
                  "firesOn":["create"],"notificationInfo":{"shouldSendContentAvailable":true}}}]}
                """#)
            var writers: [SignedInUser] = []
            for index in 0..<16 { writers.append(try await NotificationEndToEndTests.signUp("writer\(index)@example.com", apiToken: apiToken, on: front)) }

            let outcomes = Outcomes()
            let load = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, writer) in writers.enumerated() {
                        group.addTask { try await Self.write(as: writer, prefix: "w\(index)-", outcomes: outcomes) }
                    }
                    try await group.waitForAll()
                }
            }

            // The node that matches changes against subscriptions (and so would send their pushes) dies mid-load.
            var holder: String?
            for _ in 0..<100 where holder == nil {
                try await Task.sleep(for: .milliseconds(100))
                holder = try await PostgreSQLServer.rows(cluster.database.url, "SELECT holder FROM leases WHERE name = 'subscription-matching'").first
            }
            let victimName = try #require(holder?.split(separator: "/").first.map(String.init))
            let victim = try #require(cluster.nodes.first { node in node.extraArguments.contains(victimName) })
            try await Task.sleep(for: .seconds(1))
            let beforeKill = outcomes.acknowledged.withLock { $0.count }
            victim.kill()
            try await Task.sleep(for: .seconds(3))
            outcomes.stop.store(true, ordering: .relaxed)
            try await load.value
            let acknowledged = outcomes.acknowledged.withLock { $0 }
            #expect(acknowledged.count > beforeKill, "writes went on after the kill")
            print("acknowledged \(acknowledged.count) writes (\(beforeKill) before the kill), \(outcomes.retries.load(ordering: .relaxed)) retried")

            // Every acknowledged write is there.
            let names = acknowledged.sorted()
            var found: Set<String> = []
            for start in stride(from: 0, to: names.count, by: 200) {
                let batch = names[start..<min(start + 200, names.count)].map { #"{"recordName":"\#($0)"}"# }
                let looked = try await alice.post("records/lookup", #"{"records":[\#(batch.joined(separator: ","))]}"#)
                for record in looked["records"] as? [[String: Any]] ?? [] where record["serverErrorCode"] == nil {
                    if let name = record["recordName"] as? String { found.insert(name) }
                }
            }
            #expect(found == acknowledged)

            // Each write is notified exactly once, the dead node's share too: another node takes the matching lease
            // over when it expires (10 s).
            var notified: [String: Int] = [:]
            try? await Polling.until("every write is notified", within: 40, every: .milliseconds(500)) {
                notified = try await Self.notifiedRecords(of: alice)
                return acknowledged.isSubset(of: Set(notified.keys))
            }
            #expect(acknowledged.subtracting(notified.keys).isEmpty, "\(acknowledged.subtracting(notified.keys).count) writes were never notified")
            #expect(notified.values.allSatisfy { $0 == 1 }, "notified twice: \(notified.filter { $0.value > 1 }.keys.sorted())")
            let newHolder = try await PostgreSQLServer.rows(cluster.database.url, "SELECT holder FROM leases WHERE name = 'subscription-matching'").first ?? ""
            #expect(!newHolder.hasPrefix(victimName + "/"), "another node holds the matching lease now")
        }
    }

    /// Creates `prefix0`, `prefix1`, ... until told to stop, retrying each (the same record) until it is
    /// acknowledged: saved, or found saved by an attempt whose answer was lost.
    static func write(as writer: SignedInUser, prefix: String, outcomes: Outcomes) async throws {
        var number = 0
        while !outcomes.stop.load(ordering: .relaxed) {
            let name = prefix + String(number)
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Event","fields":{"kind":{"value":"load"}}}}]}"#
            var attempt = 0
            while true {
                attempt += 1
                let answer = try? await writer.server.send(
                    "POST", "/database/1/\(container)/development/public/records/modify?\(writer.query)", body: body
                )
                if let (status, json) = answer, status == 200, let record = (json["records"] as? [[String: Any]])?.first {
                    let code = record["serverErrorCode"] as? String
                    // A retry finding the record (CONFLICT, with the server's record) means the lost attempt saved it.
                    if code == nil || ((code == "CONFLICT" || code == "EXISTS") && attempt > 1) {
                        outcomes.acknowledged.withLock { _ = $0.insert(name) }
                        break
                    }
                    throw E2EFailure("\(name) was refused: \(record)")
                }
                guard attempt < 100 else { throw E2EFailure("\(name) was never acknowledged: \(String(describing: answer))") }
                outcomes.retries.add(1, ordering: .relaxed)
                try await Task.sleep(for: .milliseconds(50))
            }
            number += 1
        }
    }

    /// How many notifications `user` has per record name.
    static func notifiedRecords(of user: SignedInUser) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        var after: Int64 = 0
        while true {
            let (status, page) = try await user.server.send("GET", "/notifications/1/\(container)/development/changes?after=\(after)&\(user.query)")
            guard status == 200 else { throw E2EFailure("notifications answered \(status)") }
            let notifications = page["notifications"] as? [[String: Any]] ?? []
            for notification in notifications {
                after = max(after, (notification["id"] as? NSNumber)?.int64Value ?? after)
                let query = ((notification["payload"] as? [String: Any])?["ck"] as? [String: Any])?["qry"] as? [String: Any]
                if let name = query?["rid"] as? String { counts[name, default: 0] += 1 }
            }
            if page["moreComing"] as? Bool != true { return counts }
        }
    }
}
