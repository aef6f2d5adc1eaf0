/// What differs between the SQL dialects the backends speak, for the statements the store writes once
/// (``QueryStatement``, ``SQLTables``). Each backend has one dialect; everything else in those statements is shared.
public protocol SQLDialect: Sendable {
    /// How the parameter at `position` (from 1, in the order values appear in the text) is written.
    func placeholder(_ position: Int) -> String
    /// What follows a column to test it against a non-empty list: ` IN (...)` with one parameter per value,
    /// or ` = ANY(...)` with one array; `bind` binds a value and returns its placeholder.
    func membership(_ values: [SQLValue], bind: (SQLValue) -> String) -> String
    /// The condition that a record (under `alias`) is live, written as the dialect's partial indexes expect it.
    func live(_ alias: String) -> String
    /// A text column as it is compared and sorted: UTF-8 byte order in every dialect.
    func byteOrdered(_ column: String) -> String
    /// `ASC` or `DESC`, with `NULL` first ascending and last descending.
    func order(ascending: Bool) -> String
    /// The `field_index` column the dialect's `stratus_distance` takes as a location's latitude.
    var latitudeColumn: String { get }
    /// How the dialect writes `phrase`.
    func phrase(_ phrase: SQLPhrase) -> String
    /// Whether the records table's own indexes are turned off (unary `+`) when a field index drives the query.
    var disablesRecordIndexesBehindLookups: Bool { get }
    /// The condition that the JSON object in `column` has a member named `name`.
    func hasMember(_ column: String, _ name: String) -> SQLFragment
    /// The JSON object in `column` without its member named `name`, as text.
    func removingMember(_ column: String, _ name: String) -> SQLFragment
    /// An `INSERT` of `rows` (a value per column each) into `table`: by default one `VALUES` list.
    func insertRows(into table: String, columns: [String], rows: [[SQLValue]]) -> SQLFragment
}

extension SQLDialect {
    public func insertRows(into table: String, columns: [String], rows: [[SQLValue]]) -> SQLFragment {
        let tuples = rows.map { row -> SQLFragment in "(\(SQLFragment.joined(row.map { "\($0)" }, separator: ", ")))" }
        return "INSERT INTO \(raw: table) (\(raw: columns.joined(separator: ", "))) VALUES \(SQLFragment.joined(tuples, separator: ", "))"
    }
}


/// Words a statement needs that each dialect writes its own way, or not at all.
public enum SQLPhrase: Sendable {
    /// At the end of a `SELECT` that picks rows to change: lock them, skipping rows another transaction locked,
    /// so that nodes sharing a database pick different rows (nothing where one writer runs at a time).
    case lockSkippingLocked
    /// At the end of a `SELECT` whose rows the transaction changes next: lock them until it ends, so that
    /// transactions reading the same rows run one after another (nothing where one writer runs at a time).
    case lockForUpdate
    /// At the end of a `SELECT` of rows the transaction relies on without changing them: no other transaction
    /// may change or delete them until it ends (nothing where one writer runs at a time).
    case lockForShare
    /// The change position below which every position is settled: every transaction that could still commit a
    /// lower one has ended (see ``SQLTables/readSettled(_:)``). A scalar expression; read it once per statement
    /// (`WITH b AS MATERIALIZED (SELECT ... AS bound)`). Ask whether anything is at or above it with
    /// `(SELECT seq FROM ... AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL`, not `EXISTS`: PostgreSQL expects
    /// many rows there and may scan the whole table for the first, when there is usually none.
    case settledBound
    /// A column of `share_participants` that orders its rows as they were inserted.
    case participantOrder
    /// That the row under an alias is not deleted, written as the dialect's partial indexes expect it
    /// (``SQLDialect/live(_:)``).
    case live(String)
    /// The length in bytes of the text in a column (a qualified name such as `r.fields`).
    case byteLength(String)
}
