import Foundation
import GRDB
import StratusKit
import StratusLocalStore

/// An app's saves into its local store while offline, beside the same rows inserted with plain SQLite in the same
/// run: one by one (a transaction each), and all in one batch (one transaction). Also the time of each quarter of
/// the one-by-one saves, which stays flat when a save costs the same however many changes wait unsent.
struct OfflineSaves: Sendable {
    /// How many records each way saves.
    let count: Int

    struct Figures: Sendable {
        var count: Int
        var oneByOneSeconds: Double
        var batchSeconds: Double
        var plainOneByOneSeconds: Double
        var plainBatchSeconds: Double
        /// The one-by-one saves' time per quarter, in order.
        var quarterSeconds: [Double]
        /// Of the store's time, what encoding the records into their stored bytes takes (plain SQLite is handed them).
        var encodingSeconds: Double

        /// A Markdown paragraph of the figures and their ratios to plain SQLite.
        var summary: String {
            let quarters = quarterSeconds.map { String(format: "%.2f", $0) }.joined(separator: ", ")
            return "Offline saves into the local store, \(count) records: one by one \(String(format: "%.2f", oneByOneSeconds)) s "
                + "(\(String(format: "%.2f", oneByOneSeconds / plainOneByOneSeconds))x plain SQLite's \(String(format: "%.2f", plainOneByOneSeconds)) s, "
                + "a transaction each; aim: at most 3x; quarters \(quarters) s), in one batch \(String(format: "%.3f", batchSeconds)) s "
                + "(\(String(format: "%.2f", batchSeconds / plainBatchSeconds))x plain SQLite's \(String(format: "%.3f", plainBatchSeconds)) s in one transaction; aim: at most 2x); encoding the records took \(String(format: "%.3f", encodingSeconds)) s of the store's time."
        }
    }

    func run() async throws -> Figures {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-bench-saves-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Never reached: the store saves offline, and its engine does not sync by itself.
        let container = Container(identifier: "iCloud.bench.Offline", serverURL: URL(string: "http://127.0.0.1:9")!, apiToken: "offline")
        let zoneID = Zone.ID(zoneName: "Offline")
        let records = (0..<count).map { index in
            var record = Record(recordType: "Item", recordID: Record.ID(recordName: "r\(index)", zoneID: zoneID))
            record["title"] = "Record number \(index)"
            record["n"] = index
            return record
        }

        let single = try await LocalStore.open(file: folder.appendingPathComponent("single.sqlite"), database: container.privateCloudDatabase, automaticallySync: false)
        var quarters: [Double] = []
        let quarter = max(count / 4, 1)
        var start = ContinuousClock.now
        let oneByOneStart = start
        for (index, record) in records.enumerated() {
            try await single.save(record)
            if (index + 1) % quarter == 0 {
                quarters.append(Benchmark.seconds(ContinuousClock.now - start))
                start = ContinuousClock.now
            }
        }
        let oneByOne = Benchmark.seconds(ContinuousClock.now - oneByOneStart)

        let batched = try await LocalStore.open(file: folder.appendingPathComponent("batch.sqlite"), database: container.privateCloudDatabase, automaticallySync: false)
        start = ContinuousClock.now
        try await batched.save(records)
        let batch = Benchmark.seconds(ContinuousClock.now - start)

        start = ContinuousClock.now
        let bodies = records.map { $0.storageData() }
        let encoding = Benchmark.seconds(ContinuousClock.now - start)
        let plainOneByOne = try plainInserts(bodies, file: folder.appendingPathComponent("plain-single.sqlite"), oneTransaction: false)
        let plainBatch = try plainInserts(bodies, file: folder.appendingPathComponent("plain-batch.sqlite"), oneTransaction: true)
        return Figures(
            count: count, oneByOneSeconds: oneByOne, batchSeconds: batch, plainOneByOneSeconds: plainOneByOne,
            plainBatchSeconds: plainBatch, quarterSeconds: quarters, encodingSeconds: encoding
        )
    }

    /// The same rows inserted with plain SQLite into a table as the store defines its records (its columns, its
    /// primary key and its index by type), as the store keeps its file (WAL, synchronous NORMAL): the same bytes,
    /// each row marked as a save to send as the store marks it; a transaction each, or one for all.
    private func plainInserts(_ bodies: [Data], file: URL, oneTransaction: Bool) throws -> Double {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let database = try DatabasePool(path: file.path, configuration: configuration)
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE records (
                    zone TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, unsent TEXT,
                    number INTEGER, body BLOB NOT NULL, PRIMARY KEY (zone, owner, name)
                ) WITHOUT ROWID;
                CREATE INDEX records_by_type ON records (type);
                """)
        }
        let insert = """
            INSERT OR REPLACE INTO records (zone, owner, name, type, body, unsent, number)
            VALUES ('Offline', '__defaultOwner__', ?, 'Item', ?, 'save', ?)
            """
        let start = ContinuousClock.now
        if oneTransaction {
            try database.write { db in
                let statement = try db.cachedStatement(sql: insert)
                for (index, body) in bodies.enumerated() { try statement.execute(arguments: ["r\(index)", body, 1]) }
            }
        } else {
            for (index, body) in bodies.enumerated() {
                try database.write { db in try db.cachedStatement(sql: insert).execute(arguments: ["r\(index)", body, index]) }
            }
        }
        return Benchmark.seconds(ContinuousClock.now - start)
    }
}
