import Logging
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore {
    /// The live zone's row, if the zone exists.
    static func liveZone(_ zone: ZoneRef, connection: PostgresConnection, logger: Logger) async throws -> ZoneRow? {
        try await PostgresReading(connection: connection, logger: logger, dialect: PostgresDialect()).read(ZoneTables.liveZone(zone))
    }

    /// The live zones of a database, by name.
    static func liveZones(in database: DatabaseRef, connection: PostgresConnection, logger: Logger) async throws -> [ZoneRow] {
        try await PostgresReading(connection: connection, logger: logger, dialect: PostgresDialect()).read(ZoneTables.liveZones(in: database))
    }
}
