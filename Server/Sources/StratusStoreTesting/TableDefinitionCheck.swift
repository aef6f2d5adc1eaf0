import StratusStore

/// Checks a backend's migrated tables against the one definition of the tables every backend keeps
/// (``CopyTable/all`` and ``CopyTable/notCopied``): each backend's tests read their tables back from a freshly
/// migrated database and fail on any table or column the definition does not have, or has otherwise.
public enum TableDefinitionCheck {
    /// A column as the database describes it.
    public struct Column: Sendable, Hashable {
        public var name: String
        /// The type the database reports (`INTEGER`, `bigint`, ...).
        public var declaredType: String

        public init(name: String, declaredType: String) {
            self.name = name
            self.declaredType = declaredType
        }
    }

    /// Every disagreement between `tables` (a migrated database's tables and their columns) and the definition, as
    /// sentences; empty when they agree.
    /// - Parameters:
    ///   - ownTables: the backend's own bookkeeping tables, which the definition does not describe.
    ///   - ownColumns: the backend's own columns in the defined tables (``CopyableStore/ownColumns``).
    ///   - storedName: the column a definition's column is stored as (SQLite keeps an order as its `rowid`).
    ///   - kinds: the kinds of values a declared type holds.
    public static func disagreements(
        tables: [String: [Column]], ownTables: Set<String>, ownColumns: [String: Set<String>], storedName: (String, CopyTable) -> String,
        kinds: (String) -> Set<CopyTable.Kind>
    ) -> [String] {
        var found: [String] = []
        for table in CopyTable.all {
            guard let columns = tables[table.name] else {
                found.append("\(table.name): defined, but the migrations make no such table")
                continue
            }
            let byName = Dictionary(columns.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            var described: Set<String> = []
            for column in table.columns {
                let stored = storedName(column.name, table)
                described.insert(stored)
                if stored == "rowid" { continue }
                guard let actual = byName[stored] else {
                    found.append("\(table.name).\(column.name): defined, but the table has no such column")
                    continue
                }
                if !kinds(actual.declaredType).contains(column.kind) {
                    found.append("\(table.name).\(column.name): defined as \(column.kind), but declared \(actual.declaredType)")
                }
            }
            for column in columns where !described.contains(column.name) && !(ownColumns[table.name] ?? []).contains(column.name) {
                found.append("\(table.name).\(column.name): made by the migrations, but not in the definition (a copy would lose it)")
            }
        }
        let defined = Set(CopyTable.all.map(\.name)).union(CopyTable.notCopied.keys)
        for name in tables.keys.sorted() where !defined.contains(name) && !ownTables.contains(name) {
            found.append("\(name): made by the migrations, but neither copied nor named as not copied")
        }
        for name in CopyTable.notCopied.keys.sorted() where tables[name] == nil {
            found.append("\(name): named as not copied, but the migrations make no such table")
        }
        return found
    }
}
