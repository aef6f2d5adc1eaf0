import StratusStore
import Synchronization
import Testing

/// ``StoreCopier`` over stores kept in memory: what it refuses, and what its verification catches.
@Suite struct StoreCopierTests {
    /// Tables as sorted rows, read and written like a backend's.
    final class TableStore: CopyableStore {
        let copyDescription: String
        let ownMetaKeys: Set<String>
        let tables = Mutex<[String: [[CopyValue]]]>([:])
        /// Called after each page is read, with its table's name, to change the store under a copy.
        let afterRead: @Sendable (TableStore, String) -> Void
        let finishedAbove = Mutex<Int64?>(nil)

        init(_ name: String, ownMetaKeys: Set<String>, afterRead: @escaping @Sendable (TableStore, String) -> Void = { _, _ in }) {
            copyDescription = name
            self.ownMetaKeys = ownMetaKeys
            self.afterRead = afterRead
        }

        func copyRows(of table: CopyTable, after key: [CopyValue]?, limit: Int) async throws -> [[CopyValue]] {
            let stored: [[CopyValue]] = tables.withLock { $0[table.name] ?? [] }
            let keyed: [(key: [String], row: [CopyValue])] = stored.map { (Self.key($0, table), $0) }
            let sorted = keyed.sorted { $0.key.lexicographicallyPrecedes($1.key) }
            var page: [[CopyValue]] = []
            let start: [String]? = key.map { Self.key($0, keyOnly: true) }
            for entry in sorted where page.count < limit {
                if let start, !start.lexicographicallyPrecedes(entry.key) { continue }
                page.append(entry.row)
            }
            afterRead(self, table.name)
            return page
        }

        func insertCopiedRows(_ rows: [[CopyValue]], into table: CopyTable) async throws {
            tables.withLock { $0[table.name, default: []] += rows }
        }

        func finishCopy(highestPosition: Int64) async throws {
            finishedAbove.withLock { $0 = highestPosition }
        }

        func insert(_ table: String, _ row: [CopyValue]) {
            tables.withLock { $0[table, default: []].append(row) }
        }

        /// A row's key as text, which sorts these tests' keys (texts and small positive integers) as bytes would.
        static func key(_ row: [CopyValue], _ table: CopyTable) -> [String] {
            key(table.keyIndexes.map { row[$0] }, keyOnly: true)
        }

        static func key(_ values: [CopyValue], keyOnly: Bool) -> [String] {
            values.map { value in
                switch value {
                case .integer(let number): String(String(number).reversed()).padding(toLength: 20, withPad: "0", startingAt: 0).reversed().map(String.init).joined()
                case .text(let text): text
                default: "\(value)"
                }
            }
        }
    }

    static func zone(_ id: Int64, seq: Int64) -> [CopyValue] {
        [.integer(id), .text("iCloud.test"), .text("development"), .text("private"), .text("_owner"), .text("Zone\(id)"), .integer(seq), .integer(0)]
    }

    static func record(_ id: Int64, zone: Int64, seq: Int64) -> [CopyValue] {
        let row: [CopyValue] = [
            .integer(id), .integer(zone), .text("r\(id)"), .text("Note"), .text("tag"), .integer(seq), .integer(0), .text("{}"),
            .integer(1), .text("_owner"), .text("d"), .integer(1), .text("_owner"), .text("d"), .null, .null, .null,
        ]
        return row
    }

    @Test("everything is copied, the target continues after the highest position, and each zone is summarized")
    func copies() async throws {
        let source = TableStore("source", ownMetaKeys: ["change_seq"])
        source.insert("meta", [.text("change_seq"), .blob([1])])
        source.insert("meta", [.text("web-auth-token-key"), .blob([7, 7])])
        source.insert("zones", Self.zone(1, seq: 3))
        source.insert("zones", Self.zone(2, seq: 9))
        for id in 1...5 { source.insert("records", Self.record(Int64(id), zone: id < 4 ? 1 : 2, seq: Int64(10 + id))) }
        let target = TableStore("target", ownMetaKeys: ["position_offset"])
        target.insert("meta", [.text("position_offset"), .blob([0])])

        let summary = try await StoreCopier(source: source, target: target).copy()
        #expect(summary.records == 5)
        #expect(summary.zones.map(\.records) == [3, 2])
        #expect(target.finishedAbove.withLock { $0 } == 15)
        let meta = target.tables.withLock { $0["meta"] ?? [] }
        #expect(meta.count == 2, "the secret is copied, the source's own counter is not")
    }

    @Test("a target holding data is refused, even when the backend's own meta rows come first")
    func nonEmptyTargetRefused() async throws {
        let source = TableStore("source", ownMetaKeys: [])
        source.insert("zones", Self.zone(1, seq: 1))
        let target = TableStore("target", ownMetaKeys: ["events_pruned_through"])
        target.insert("meta", [.text("events_pruned_through"), .blob([0])])
        target.insert("meta", [.text("web-auth-token-key"), .blob([1])])
        let error = await #expect(throws: StorageError.self) { try await StoreCopier(source: source, target: target).copy() }
        #expect(error?.code == .alreadyExists)
        #expect(error?.message.contains("table meta") == true, "\(String(describing: error?.message))")
        #expect(target.tables.withLock { $0["zones"] } == nil, "nothing was written")
    }

    @Test("a source that changes during the copy fails the verification")
    func changedSourceFailsVerification() async throws {
        let source = TableStore("source", ownMetaKeys: []) { store, table in
            // A server still writing: a record appears in zone 1 after the records were read.
            if table == "records", store.tables.withLock({ $0["records"]?.count }) == 1 { store.insert("records", Self.record(2, zone: 1, seq: 5)) }
        }
        source.insert("zones", Self.zone(1, seq: 1))
        source.insert("records", Self.record(1, zone: 1, seq: 2))
        let target = TableStore("target", ownMetaKeys: [])
        let error = await #expect(throws: StorageError.self) { try await StoreCopier(source: source, target: target).copy() }
        #expect(error?.code == .conflict)
        #expect(error?.message.contains("records") == true, "\(String(describing: error?.message))")
    }
}
