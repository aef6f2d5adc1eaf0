/// A value of a copied row (see ``CopyTable/Kind``).
public enum CopyValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A store whose tables can be read and written row by row, so that ``StoreCopier`` can move everything from one
/// backend to another. Used by `stratus migrate` on stores no server is using.
public protocol CopyableStore: Sendable {
    /// What the store is, for messages ("SQLite file …", "PostgreSQL database …").
    var copyDescription: String { get }

    /// The `meta` keys that are this backend's own bookkeeping (its change counter, its migrations), which a
    /// copy neither reads nor overwrites.
    var ownMetaKeys: Set<String> { get }

    /// Columns of the defined tables that are this backend's own (PostgreSQL's schema versions, and the number an
    /// index key holds), by table: a copy leaves them to their defaults or works them out itself.
    var ownColumns: [String: Set<String>] { get }

    /// Up to `limit` rows of `table` whose key comes after `key` (from the first when `nil`), in key order
    /// (text and bytes compared bytewise), each with the table's columns in order.
    func copyRows(of table: CopyTable, after key: [CopyValue]?, limit: Int) async throws -> [[CopyValue]]

    /// Inserts rows read from another store, keeping their ids and positions.
    func insertCopiedRows(_ rows: [[CopyValue]], into table: CopyTable) async throws

    /// Ends a copy into this store: the store's own counters (ids, change positions) continue after the copied
    /// ones, so that every later change comes after `highestPosition`; counts kept by triggers are recomputed.
    func finishCopy(highestPosition: Int64) async throws
}

extension CopyableStore {
    public var ownColumns: [String: Set<String>] { [:] }
}
