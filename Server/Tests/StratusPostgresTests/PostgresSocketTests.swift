import StratusModel
import StratusPostgres
import StratusStore
import StratusStoreTesting
import Testing

@Suite struct PostgresSocketTests {
    @Test("a store on the same machine as PostgreSQL connects through its Unix socket, and writes and reads")
    func throughTheSocket() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        try await withDatabaseRemoved(database) {
            let folders = try await PostgreSQLServer.rows(database.url, "SHOW unix_socket_directories").first ?? ""
            let folder = try #require(folders.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.first { $0.hasPrefix("/") })
            var configuration = try testConfiguration(database.url, poolSize: 2)
            configuration.host = folder
            #expect(configuration.socketPath?.hasPrefix(folder) == true)
            let store = try await PostgresStore.connect(configuration: configuration, logger: quietLogger)
            do {
                let owner = "_a11ce000000000000000000000000000"
                let privateDatabase = DatabaseRef.privateDatabase("iCloud.test.Socket", .development, owner: owner)
                _ = try await store.modifyZones([.create(zoneName: "Notes")], in: privateDatabase)
                let results = try await store.modifyRecords(RecordBatch(
                    zone: privateDatabase.zone("Notes"),
                    operations: [RecordOperation(type: .create, recordName: "n1", recordType: "Note", fields: ["title": FieldInput(value: .string("hello"), type: nil)])],
                    atomic: true, caller: Caller(userRecordName: owner), timestamp: 1_700_000_000_000
                ))
                guard case .saved? = results.first else { throw StorageError(.internalFailure, "not saved: \(results)") }
                let found = try await store.lookupRecords(["n1"], in: privateDatabase.zone("Notes"))
                #expect(found["n1"]?.recordType == "Note")
            } catch {
                await store.close()
                throw error
            }
            await store.close()
        }
    }
}
