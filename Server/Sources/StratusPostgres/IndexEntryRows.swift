import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// Index entries gathered as one JSON array of `field_index` rows and inserted with one statement
/// (`jsonb_to_recordset`), whatever their number.
struct IndexEntryRows {
    private var writer = JSONWriter()
    private(set) var count = 0

    init() {
        writer.beginArray()
    }

    /// Adds a record's entry.
    mutating func add(_ entry: IndexEntry, zoneID: Int64, type: String, recordID: Int64) {
        writer.arrayElement()
        writer.beginObject()
        writer.key("zone_id"); writer.integer(zoneID)
        writer.key("type"); writer.string(type)
        writer.key("field"); writer.string(entry.field)
        writer.key("kind"); writer.integer(Int64(entry.kind.rawValue))
        writer.key("value"); writer.string(entry.key.hex)
        writer.key("extra"); writer.double(entry.extra)
        writer.key("number")
        if let number = entry.key.number { writer.double(number) } else { writer.null() }
        writer.key("record_id"); writer.integer(recordID)
        writer.endObject()
        count += 1
    }

    /// Inserts every entry added; an entry already there is left as it is.
    consuming func insert(connection: PostgresConnection, logger: Logger) async throws {
        guard count > 0 else { return }
        writer.endArray()
        try await connection.run(InsertIndexEntries.self, try binds(writer.text), logger: logger)
    }
}
