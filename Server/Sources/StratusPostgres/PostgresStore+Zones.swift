import Logging
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore {
    /// The live zones of a database, by name.
    static func liveZones(in database: DatabaseRef, connection: PostgresConnection, logger: Logger) async throws -> [ZoneRow] {
        try await PostgresReading(connection: connection, logger: logger, dialect: PostgresDialect()).read(ZoneTables.liveZones(in: database))
    }
}
