/// The first rows of a table ordered by change position that have settled (``SQLPhrase/settledBound``), and
/// whether a later one has committed but not settled: the shape of the outbox's and the notifications' reads.
/// Where every committed position is settled (SQLite), the rows alone, with no bound to read.
enum SettledRows {
    /// How a store reads them.
    enum Strategy {
        /// Every committed position is settled (``SQLTables/commitsInPositionOrder``): the rows alone.
        case committedIsSettled
        /// The bound, whether anything is unsettled and the rows below the bound, in one statement.
        case belowTheBound

        /// The strategy for `store`.
        init(_ store: some SQLTables) {
            self = store.commitsInPositionOrder ? .committedIsSettled : .belowTheBound
        }
    }

    /// Up to `limit` rows (`columns`) of `table` matching `condition`, after position `after`, below the settled bound.
    static func read(
        _ columns: String, from table: String, position: String, where condition: SQLFragment? = nil, after: Int64?, limit: Int,
        strategy: Strategy, reading: any SQLReading
    ) async throws -> (rows: [SQLRow], unsettled: Bool) {
        let matching: SQLFragment = condition.map { "\($0) AND " } ?? ""
        let later: SQLFragment = after.map { " AND \(raw: position) > \(.integer($0))" } ?? ""
        if case .committedIsSettled = strategy {
            let rows = try await reading.rows("""
                SELECT \(raw: columns) FROM \(raw: table) WHERE \(matching)TRUE\(later) ORDER BY \(raw: position) LIMIT \(.integer(Int64(limit)))
                """)
            return (rows, false)
        }
        let unsettled: SQLFragment = """
            (SELECT \(raw: position) FROM \(raw: table) WHERE \(matching)\(raw: position) >= b.bound ORDER BY \(raw: position) LIMIT 1) IS NOT NULL
            """
        // The limit applies before the bound: settled positions come before unsettled ones.
        let rows = try await reading.rows("""
            WITH b AS MATERIALIZED (SELECT \(.settledBound) AS bound),
            s AS MATERIALIZED (SELECT b.bound, \(unsettled) AS unsettled FROM b)
            SELECT t.*, s.unsettled
            FROM s LEFT JOIN (
                SELECT \(raw: columns) FROM \(raw: table) WHERE \(matching)TRUE\(later) ORDER BY \(raw: position) LIMIT \(.integer(Int64(limit)))
            ) t ON t.\(raw: position) < s.bound
            ORDER BY t.\(raw: position)
            """)
        return (rows.filter { !$0.isNull(position) }, try rows.first?.bool("unsettled") ?? false)
    }
}
