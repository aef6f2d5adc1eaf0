import Crypto
import StratusModel

/// Copies everything one store holds into another, empty one, of any backend, and verifies the copy: the same
/// rows in every table (counts and checksums), and the same records in every zone (a count and a checksum per
/// zone).
///
/// Ids and change positions are kept, and the target's own counters continue after the copied ones, so that a
/// client that synced against the source syncs on against the target from its token.
///
/// ```swift
/// let summary = try await StoreCopier(source: sqlite, target: postgres).copy { print($0.table, $0.rows) }
/// ```
public struct StoreCopier: Sendable {
    public let source: any CopyableStore
    public let target: any CopyableStore

    public init(source: any CopyableStore, target: any CopyableStore) {
        self.source = source
        self.target = target
    }

    /// The `meta` keys neither side copies: each backend's own bookkeeping.
    private var skippedMeta: Set<String> { source.ownMetaKeys.union(target.ownMetaKeys) }

    /// How far a copy has come: `rows` of `table` copied so far.
    public struct Progress: Sendable {
        public let table: String
        public let rows: Int
        public let finished: Bool
    }

    /// Copies every table, then verifies the target against the source.
    /// - Returns: the verified summary, the same for both stores.
    /// - Throws: ``StorageError/Code/alreadyExists`` when the target holds data already;
    ///   ``StorageError/Code/conflict`` when the copy does not match the source (a server was writing to it).
    public func copy(progress: @Sendable (Progress) -> Void = { _ in }) async throws -> CopySummary {
        try await requireEmptyTarget()
        var highestPosition: Int64 = 0
        for table in CopyTable.all {
            let positionIndexes = table.positions.compactMap(table.index(of:))
            var copied = 0
            try await forEachPage(of: table, in: source, skippingMeta: skippedMeta) { rows in
                try await target.insertCopiedRows(rows, into: table)
                for row in rows {
                    for index in positionIndexes {
                        if case .integer(let position) = row[index] { highestPosition = max(highestPosition, position) }
                    }
                }
                copied += rows.count
                progress(Progress(table: table.name, rows: copied, finished: false))
            }
            progress(Progress(table: table.name, rows: copied, finished: true))
        }
        try await target.finishCopy(highestPosition: highestPosition)
        let expected = try await summarize(source)
        let copied = try await summarize(target)
        let differences = expected.differences(from: copied)
        guard differences.isEmpty else {
            throw StorageError(
                .conflict,
                "the copy does not match \(source.copyDescription) (\(differences.joined(separator: "; "))); was a server still writing to it? "
                    + "Stop every server using it, empty the target and copy again"
            )
        }
        return copied
    }

    /// Counts and checksums of everything `store` holds, as ``copy(progress:)`` compares them.
    public func summarize(_ store: any CopyableStore) async throws -> CopySummary {
        let skipped = skippedMeta
        var tables: [CopySummary.Table] = []
        var zones: [Int64: CopySummary.Zone] = [:]
        var zoneDigests: [Int64: RowDigest] = [:]
        for table in CopyTable.all {
            var digest = RowDigest()
            let zoneColumn = table.name == "records" ? table.index(of: "zone_id") : nil
            try await forEachPage(of: table, in: store, skippingMeta: skipped) { rows in
                for row in rows {
                    digest.add(row)
                    if table.name == "zones", let zone = CopySummary.Zone(row: row, table: table) { zones[zone.id] = zone }
                    if let zoneColumn, case .integer(let zoneID) = row[zoneColumn] { zoneDigests[zoneID, default: RowDigest()].add(row) }
                }
            }
            tables.append(CopySummary.Table(name: table.name, rows: digest.rows, checksum: digest.hex))
        }
        for (id, digest) in zoneDigests {
            zones[id, default: CopySummary.Zone(id: id)].records = digest.rows
            zones[id, default: CopySummary.Zone(id: id)].checksum = digest.hex
        }
        return CopySummary(tables: tables, zones: zones.values.sorted { $0.id < $1.id })
    }

    private func requireEmptyTarget() async throws {
        for table in CopyTable.all {
            var holdsRows = false
            // One row tells, except in meta, whose first rows may be the backend's own (skipped).
            try await forEachPage(of: table, in: target, skippingMeta: skippedMeta, limit: table.name == "meta" ? .max : 1) { rows in
                holdsRows = holdsRows || !rows.isEmpty
            }
            if holdsRows {
                throw StorageError(
                    .alreadyExists, "\(target.copyDescription) already holds data (table \(table.name)); copy only into an empty store"
                )
            }
        }
    }

    /// Reads `table` page by page in key order and hands each non-empty page to `body`; `limit` stops after
    /// that many rows.
    private func forEachPage(
        of table: CopyTable, in store: any CopyableStore, skippingMeta: Set<String>, limit: Int = .max,
        _ body: ([[CopyValue]]) async throws -> Void
    ) async throws {
        let keyIndexes = table.keyIndexes
        var after: [CopyValue]? = nil
        var seen = 0
        while seen < limit {
            let page = try await store.copyRows(of: table, after: after, limit: min(table.pageSize, limit - seen))
            guard let last = page.last else { return }
            after = keyIndexes.map { last[$0] }
            seen += page.count
            let rows = table.name == "meta" ? page.filter { row in
                if case .text(let key) = row[0] { return !skippingMeta.contains(key) }
                return true
            } : page
            if !rows.isEmpty { try await body(rows) }
            if page.count < min(table.pageSize, limit) { return }
        }
    }
}

/// What a store holds, as a copy verifies it: rows and a checksum per table, records and a checksum per zone.
public struct CopySummary: Sendable, Hashable {
    public struct Table: Sendable, Hashable {
        public let name: String
        public let rows: Int
        /// SHA-256 of the rows in key order, hexadecimal.
        public let checksum: String
    }

    /// A zone (live or deleted) and its records (tombstones included).
    public struct Zone: Sendable, Hashable {
        public let id: Int64
        public var container = ""
        public var environment = ""
        public var scope = ""
        public var owner = ""
        public var name = ""
        public var deleted = false
        public var records = 0
        /// SHA-256 of the zone's record rows in id order, hexadecimal; empty for a zone without records.
        public var checksum = ""

        init(id: Int64) {
            self.id = id
        }

        init?(row: [CopyValue], table: CopyTable) {
            func text(_ column: String) -> String {
                if let index = table.index(of: column), case .text(let value) = row[index] { return value }
                return ""
            }
            guard let index = table.index(of: "id"), case .integer(let id) = row[index] else { return nil }
            self.id = id
            container = text("container_id")
            environment = text("environment")
            scope = text("scope")
            owner = text("owner")
            name = text("name")
            if let index = table.index(of: "deleted"), case .integer(let flag) = row[index] { deleted = flag != 0 }
        }
    }

    public let tables: [Table]
    public let zones: [Zone]

    /// Every record row, in every zone.
    public var records: Int { tables.first { $0.name == "records" }?.rows ?? 0 }

    /// What differs between this summary and `other`, one phrase each.
    public func differences(from other: CopySummary) -> [String] {
        var found: [String] = []
        for (mine, theirs) in zip(tables, other.tables) where mine != theirs {
            found.append(mine.rows == theirs.rows ? "table \(mine.name): same \(mine.rows) rows, other content" : "table \(mine.name): \(mine.rows) rows, \(theirs.rows) in the copy")
        }
        let otherZones = Dictionary(other.zones.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for zone in zones where otherZones[zone.id] != zone {
            found.append("zone \(zone.name) of \(zone.owner) in \(zone.container): \(zone.records) records, \(otherZones[zone.id]?.records ?? 0) in the copy")
        }
        if zones.count != other.zones.count { found.append("\(zones.count) zones, \(other.zones.count) in the copy") }
        return found
    }
}

/// A running SHA-256 of rows, each value encoded with its kind so that no two different rows encode alike.
struct RowDigest {
    private var hash = SHA256()
    private(set) var rows = 0

    mutating func add(_ row: [CopyValue]) {
        var bytes: [UInt8] = []
        for value in row {
            switch value {
            case .null: bytes.append(0)
            case .integer(let number):
                bytes.append(1)
                append(UInt64(bitPattern: number), to: &bytes)
            case .real(let number):
                bytes.append(2)
                append(number.bitPattern, to: &bytes)
            case .text(let text):
                bytes.append(3)
                append(UInt64(text.utf8.count), to: &bytes)
                bytes += text.utf8
            case .blob(let blob):
                bytes.append(4)
                append(UInt64(blob.count), to: &bytes)
                bytes += blob
            }
        }
        hash.update(data: bytes)
        rows += 1
    }

    private func append(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    var hex: String {
        guard rows > 0 else { return "" }
        return Array(hash.finalize()).hexadecimal
    }
}
