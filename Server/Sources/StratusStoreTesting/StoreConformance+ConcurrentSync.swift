import StratusModel
import StratusStore
import Synchronization
import Testing

/// Change feeds stay exact while several writers commit at once: readers that sync while they write neither
/// skip nor repeat a change.
extension StoreConformance {
    static var concurrentSyncCases: [ConformanceCase] {
        [
            ConformanceCase("readers syncing while four writers commit see every record once, in commit order") { store in
                let zone = try await Fixture.createZone(store, "Busy")
                let expected = try await syncWhileWriting(writers: [store, store, store, store], readers: [store, store], zone: zone)
                #expect(expected.allSatisfy { $0 })
            },
        ]
    }

    /// Runs writers that each create `perWriter` records in `zone` (one or two per batch) while every reader
    /// syncs the zone from no token in small pages, then checks each reader's feed. Writers and readers may be
    /// different stores over the same data (processes or nodes). Returns whether each reader's feed was exact.
    public static func syncWhileWriting(
        writers: [any Store], readers: [any Store], zone: ZoneRef, perWriter: Int = 60
    ) async throws -> [Bool] {
        let writersDone = DoneFlag()
        let all = Set(writers.indices.flatMap { writer in (0..<perWriter).map { "w\(writer)-\($0)" } })
        return try await withThrowingTaskGroup(of: (Int, [String])?.self) { group in
            for (index, reader) in readers.enumerated() {
                group.addTask {
                    var token: String?
                    var seen: [String] = []
                    var drained = false
                    while true {
                        let finished = writersDone.value.load(ordering: .acquiring)
                        let page = try await reader.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: token, limit: 7 + index * 5))
                        seen += page.changes.map(\.recordName)
                        token = page.syncToken
                        if page.moreComing { continue }
                        // One full pass after every writer finished: nothing may be left behind.
                        if drained { break }
                        if finished { drained = true }
                        if page.changes.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
                    }
                    return (index, seen)
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { writing in
                for (index, writer) in writers.enumerated() {
                    writing.addTask {
                        var next = 0
                        while next < perWriter {
                            let count = min(perWriter - next, 1 + next % 2)
                            let operations = (next..<next + count).map { Fixture.create("w\(index)-\($0)", type: "Busy", ["n": Fixture.field(.integer(Int64($0)))]) }
                            let results = try await Fixture.modify(writer, zone, operations, atomic: false)
                            for result in results {
                                if case .failed(let failure) = result { Issue.record("write failed: \(failure.error)") }
                            }
                            next += count
                        }
                    }
                }
                try await writing.waitForAll()
            }
            writersDone.value.store(true, ordering: .releasing)
            var exact = Array(repeating: false, count: readers.count)
            for try await result in group {
                guard let (index, seen) = result else { continue }
                let repeated = seen.count - Set(seen).count
                let missing = all.subtracting(seen)
                #expect(repeated == 0, "reader \(index) saw \(repeated) records twice")
                #expect(missing.isEmpty, "reader \(index) skipped \(missing.count) records: \(missing.sorted().prefix(5))")
                // Each writer's records were committed in order, so each reader sees them in that order.
                for writer in writers.indices {
                    let own = seen.filter { $0.hasPrefix("w\(writer)-") }.compactMap { Int($0.split(separator: "-")[1]) }
                    #expect(own == own.sorted(), "reader \(index) saw writer \(writer)'s records out of order")
                }
                exact[index] = repeated == 0 && missing.isEmpty
            }
            return exact
        }
    }
}

/// Tells the readers that every writer has finished.
private final class DoneFlag: Sendable {
    let value = Atomic<Bool>(false)
}
