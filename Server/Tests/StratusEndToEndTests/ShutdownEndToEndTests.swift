import Foundation
import StratusModel
import StratusStore
import StratusStoreTesting
import StratusTestSupport
import Synchronization
import Testing

/// Stopping a node: what a rolling restart relies on.
@Suite(.serialized) struct ShutdownEndToEndTests {
    /// The jobs a node runs once across nodes, whose leases it must give back when it stops.
    static let leasedJobs = ["subscription-matching", "asset-collection"]

    @Test("a node on S3 stopped with SIGTERM under load exits 0 in its grace period, without a backtrace, keeping what it acknowledged and giving its leases back")
    func sigtermUnderLoad() async throws {
        guard let storage = try await S3TestStorage.make("shutdown") else { return }
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: storage.serveArguments + ["--asset-sweep-interval", "1", "--quiet"])
        try await server.start()
        defer { server.kill() }
        let client = try await AssetEndToEndTests.signUp(on: server)
        // With a subscription, every save goes through the outbox the node empties under a lease.
        _ = try await client.post("subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"every-message","subscriptionType":"query","query":{"recordType":"Message"},"firesOn":["create","update"]}}]}"#)

        // The test's view of the node's store (the same SQLite file or PostgreSQL database).
        let store = try await StoreFactory.current.makeStore(folder)
        defer { Task { await StoreFactory.current.releaseStore(store, folder) } }

        // Four writers upload files and save records holding them until the node stops answering.
        let load = Load()
        let writers = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        var round = 0
                        while !load.stopping {
                            round += 1
                            let name = "w\(writer)-\(round)"
                            do {
                                let (status, reply) = try await server.send("POST", try await client.uploadPath(), body: "file \(name)")
                                guard status == 200, let file = reply["singleFile"] as? [String: Any] else { continue }
                                _ = try await client.attach(file, to: name)
                                load.acknowledge(name)
                            } catch where load.stopping {
                                return
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        try await Self.waitUntilHeld(Self.leasedJobs, in: store, server: server)
        while load.acknowledged.count < 20 {
            try await Task.sleep(for: .milliseconds(20))
        }

        load.stop()
        let status = await server.terminate(within: .seconds(30))
        // Requests the stopping node refused are expected; a writer's failure before the stop is not.
        try await writers.value
        let output = server.recentOutput
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none: still running 30 s after SIGTERM"); output: \(output.suffix(3000))")
        for sign in ["Program crashed", "Fatal error", "Backtrac"] {
            #expect(!output.contains(sign), "the node's output shows \(sign): \(output.suffix(3000))")
        }

        // Every save the node acknowledged is in the store.
        let names = load.acknowledged
        let zone = DatabaseRef.publicDatabase(AssetEndToEndTests.container, .development).zone(ZoneID.defaultZoneName)
        let found = try await store.lookupRecords(names, in: zone)
        #expect(Set(found.keys) == Set(names), "acknowledged but missing: \(Set(names).subtracting(found.keys).sorted())")

        // Another node takes each job at once, not when the stopped node's lease would have run out.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for job in Self.leasedJobs {
            let taken = try await store.acquireLease(job, holder: "the next node", now: now, duration: 60_000)
            #expect(taken, "the stopped node still holds \(job)")
        }
    }

    /// What the writers saw: the saves the node acknowledged, and whether the test is stopping the node.
    final class Load: Sendable {
        private let state = Mutex((acknowledged: [String](), stopping: false))
        var acknowledged: [String] { state.withLock { $0.acknowledged } }
        var stopping: Bool { state.withLock { $0.stopping } }
        func acknowledge(_ name: String) { state.withLock { $0.acknowledged.append(name) } }
        func stop() { state.withLock { $0.stopping = true } }
    }

    /// Waits until the node holds each lease: a probe that asks for a lease lasting one millisecond is refused.
    static func waitUntilHeld(_ leases: [String], in store: any Store, server: ServerProcess) async throws {
        var waiting = leases
        try await Polling.until("the node takes its leases", within: 60, every: .milliseconds(100)) {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            var stillFree: [String] = []
            for lease in waiting where try await store.acquireLease(lease, holder: "probe", now: now, duration: 1) {
                stillFree.append(lease)
            }
            waiting = stillFree
            return waiting.isEmpty
        } describe: {
            "no lease for \(waiting); its output: \(server.recentOutput.suffix(2000))"
        }
    }
}
