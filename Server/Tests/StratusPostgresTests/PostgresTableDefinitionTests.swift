import StratusPostgres
import StratusStore
import StratusStoreTesting
import Testing

@Suite struct PostgresTableDefinitionTests {
    @Test("the PostgreSQL migrations make exactly the tables and columns of the one table definition, of its kinds")
    func migrationsAgreeWithTheDefinition() async throws {
        try await withPostgresStore { store, database in
            let rows = try await PostgreSQLServer.rows(database.url, """
                SELECT table_name || '|' || column_name || '|' || data_type FROM information_schema.columns
                WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
                """)
            var tables: [String: [TableDefinitionCheck.Column]] = [:]
            for row in rows {
                let parts = row.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
                guard parts.count == 3 else { continue }
                tables[parts[0], default: []].append(TableDefinitionCheck.Column(name: parts[1], declaredType: parts[2]))
            }
            let disagreements = TableDefinitionCheck.disagreements(
                tables: tables, ownTables: ["stratus_migrations"], ownColumns: store.ownColumns, storedName: { column, _ in column }
            ) { declared in
                switch declared {
                case "bigint", "integer", "smallint": [.integer]
                case "boolean": [.boolean]
                case "double precision", "real": [.real]
                case "text": [.text]
                case "bytea": [.blob]
                default: []
                }
            }
            #expect(!tables.isEmpty, "no tables read from \(database.url)")
            #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
        }
    }
}
