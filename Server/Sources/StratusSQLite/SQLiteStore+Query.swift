import GRDB
import StratusModel
import StratusStore

extension SQLiteStore {
    /// How the first page of a query is read: the store's ``QueryPlan`` on the first line, then SQLite's plan
    /// of the statement, one line per step (`EXPLAIN QUERY PLAN`).
    ///
    /// For operators and tests: a plan that says `SCAN` over records reads every record of the type, and
    /// `USE TEMP B-TREE FOR ORDER BY` sorts every match before cutting the page.
    public func queryPlan(for query: RecordQuery) async throws -> [String] {
        guard let planned = try await planQuery(query), let (page, _) = try await read(pageStatement(for: planned)) else { return [] }
        let (sql, values) = page.statement.rendered(in: SQLiteDialect())
        return try await read { db in
            [planned.plan.description] + (try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(values))
                .map { $0["detail"] as String })
        }
    }
}
