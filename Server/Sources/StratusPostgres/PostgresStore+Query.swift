import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore {
    /// How the first page of a query is read: the store's ``QueryPlan`` on the first line, then PostgreSQL's
    /// plan of the statement (`EXPLAIN`), one line per step.
    public func queryPlan(for query: RecordQuery) async throws -> [String] {
        guard let planned = try await planQuery(query), let (page, _) = try await read(pageStatement(for: planned)) else { return [] }
        let (sql, values) = page.statement.rendered(in: dialect)
        let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + sql, binds: try PostgresQuery.bindings(values).bindings)
        return [planned.plan.description] + (try await read { connection in
            try await connection.all(explain, as: String.self, logger: self.logger)
        })
    }
}
