/// The first rows of a table ordered by change position that have settled (``SQLPhrase/settledBound``), and
/// whether a later one has committed but not settled: the shape of the outbox's and the notifications' reads.
enum SettledRows {
    /// Up to `limit` rows (`columns`) of `table` matching `condition`, after position `after`, below the settled bound.
    /// - Parameter combined: one statement (where each statement is a round trip), else the bound and the
    ///   unsettled flag first, then the rows below that bound (where statements run in-process and the combined
    ///   one costs more).
    static func read(
        _ columns: String, from table: String, position: String, where condition: SQLFragment? = nil, after: Int64?, limit: Int,
        combined: Bool, reading: any SQLReading
    ) async throws -> (rows: [SQLRow], unsettled: Bool) {
        let matching: SQLFragment = condition.map { "\($0) AND " } ?? ""
        let later: SQLFragment = after.map { " AND \(raw: position) > \(.integer($0))" } ?? ""
        let unsettled: SQLFragment = """
            (SELECT \(raw: position) FROM \(raw: table) WHERE \(matching)\(raw: position) >= b.bound ORDER BY \(raw: position) LIMIT 1) IS NOT NULL
            """
        if combined {
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
        guard let figures = try await reading.rows("""
            WITH b AS MATERIALIZED (SELECT \(.settledBound) AS bound) SELECT b.bound, \(unsettled) AS unsettled FROM b
            """).first else { throw StorageError(.internalFailure, "the settled bound was not read") }
        let rows = try await reading.rows("""
            SELECT \(raw: columns) FROM \(raw: table)
            WHERE \(matching)\(raw: position) < \(.integer(try figures.integer("bound")))\(later)
            ORDER BY \(raw: position) LIMIT \(.integer(Int64(limit)))
            """)
        return (rows, try figures.bool("unsettled"))
    }
}
