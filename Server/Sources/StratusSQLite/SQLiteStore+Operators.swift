import GRDB
import StratusModel
import StratusStore

/// How many records of a type there are, for operators and schema changes.
extension SQLiteStore {
    public func recordCount(ofType recordType: String, holding field: String?, containerID: String, environment: Environment) async throws -> Int {
        try await read { db in
            try Self.count(RecordCountRequest(environment: environment, recordType: recordType, field: field), containerID: containerID, db: db)
        }
    }
}
