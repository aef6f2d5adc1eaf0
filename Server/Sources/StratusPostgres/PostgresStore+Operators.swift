import PostgresNIO
import StratusModel
import StratusStore

/// How many records of a type there are, for operators and schema changes.
extension PostgresStore {
    public func recordCount(ofType recordType: String, holding field: String?, containerID: String, environment: Environment) async throws -> Int {
        try await read { connection in
            try await Self.count(
                RecordCountRequest(environment: environment, recordType: recordType, field: field), containerID: containerID,
                connection: connection, logger: self.logger
            )
        }
    }
}
