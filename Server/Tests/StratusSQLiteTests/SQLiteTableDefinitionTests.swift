import GRDB
import StratusSQLite
import StratusStore
import StratusStoreTesting
import Testing

@Suite struct SQLiteTableDefinitionTests {
    @Test("the SQLite migrations make exactly the tables and columns of the one table definition, of its kinds")
    func migrationsAgreeWithTheDefinition() async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        await store.close()
        let database = try DatabaseQueue(path: path)
        let tables = try await database.read { db in
            var tables: [String: [TableDefinitionCheck.Column]] = [:]
            for name in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
                tables[name] = try Row.fetchAll(db, sql: "SELECT name, type FROM pragma_table_info(?)", arguments: [name]).map { row in
                    TableDefinitionCheck.Column(name: row["name"], declaredType: row["type"])
                }
            }
            return tables
        }
        let disagreements = TableDefinitionCheck.disagreements(
            tables: tables, ownTables: ["grdb_migrations", "sqlite_sequence"], ownColumns: store.ownColumns, storedName: SQLiteStore.stored(_:in:)
        ) { declared in
            switch declared.uppercased() {
            case "INTEGER": [.integer, .boolean]
            case "REAL": [.real]
            case "TEXT": [.text]
            case "BLOB": [.blob]
            default: []
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.joined(separator: "\n"))")
    }
}
