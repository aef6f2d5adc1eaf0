/// A record's error in a per-item answer: `{recordName, serverErrorCode, reason, uuid, serverRecord?, retryAfter?}`.
public struct RecordErrorEntry: Sendable, Hashable, Decodable, JSONWritable {
    public var recordName: String
    public var serverErrorCode: String
    public var reason: String
    /// Names this failure in the server's logs.
    public var uuid: String?
    /// With `CONFLICT`: the record as the server has it, when the caller may read it.
    public var serverRecord: Record?
    /// Seconds to wait before trying again, when the server says.
    public var retryAfter: Int?

    public init(recordName: String, serverErrorCode: String, reason: String, uuid: String? = nil, serverRecord: Record? = nil, retryAfter: Int? = nil) {
        self.recordName = recordName
        self.serverErrorCode = serverErrorCode
        self.reason = reason
        self.uuid = uuid
        self.serverRecord = serverRecord
        self.retryAfter = retryAfter
    }

    /// Writes the entry, its server record rendered for the caller.
    public func write(to writer: inout JSONWriter, rendering: RecordRendering) {
        writer.beginObject()
        writer.key("reason")
        writer.string(reason)
        writer.key("recordName")
        writer.string(recordName)
        if let retryAfter {
            writer.key("retryAfter")
            writer.integer(Int64(retryAfter))
        }
        if let serverRecord {
            writer.key("serverRecord")
            serverRecord.write(to: &writer, rendering: rendering)
        }
        writer.key("serverErrorCode")
        writer.string(serverErrorCode)
        if let uuid {
            writer.key("uuid")
            writer.string(uuid)
        }
        writer.endObject()
    }

    public func write(to writer: inout JSONWriter) {
        write(to: &writer, rendering: .full)
    }
}

/// One item of a `records/modify`, `records/lookup`, `records/query` or change feed answer: a record, a
/// deletion (`deleted: true`), or the item's error (it has a `serverErrorCode`).
public enum RecordResultEntry: Sendable, Hashable, Decodable, JSONWritable {
    case record(Record)
    case deleted(DeletedRecord)
    case failure(RecordErrorEntry)

    private enum Key: String, CodingKey {
        case serverErrorCode, deleted
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.serverErrorCode) {
            self = .failure(try RecordErrorEntry(from: decoder))
        } else if try container.decodeIfPresent(Bool.self, forKey: .deleted) == true {
            self = .deleted(try DeletedRecord(from: decoder))
        } else {
            self = .record(try Record(from: decoder))
        }
    }

    /// Writes the item, a record rendered for the caller.
    public func write(to writer: inout JSONWriter, rendering: RecordRendering) {
        switch self {
        case .record(let record): record.write(to: &writer, rendering: rendering)
        case .deleted(let deletion): deletion.write(to: &writer)
        case .failure(let failure): failure.write(to: &writer, rendering: rendering)
        }
    }

    public func write(to writer: inout JSONWriter) {
        write(to: &writer, rendering: .full)
    }
}

/// The answer of `records/modify`, `records/lookup` and `records/query`: `{records, continuationMarker?}`.
public struct RecordsResponse: Sendable, Hashable, Decodable, JSONWritable {
    /// One entry per operation or name asked, in order; a query's matches.
    public var records: [RecordResultEntry]
    /// A query's marker for the next page, when more records match.
    public var continuationMarker: String?

    public init(records: [RecordResultEntry], continuationMarker: String? = nil) {
        self.records = records
        self.continuationMarker = continuationMarker
    }

    /// Writes the answer, each item written by `item`: the server renders items as it goes.
    public static func write<Items: Sequence>(
        _ items: Items, continuationMarker: String? = nil, to writer: inout JSONWriter,
        item: (inout JSONWriter, Items.Element) -> Void
    ) {
        writer.beginObject()
        if let continuationMarker {
            writer.key("continuationMarker")
            writer.string(continuationMarker)
        }
        writer.array("records", items, item)
        writer.endObject()
    }

    public func write(to writer: inout JSONWriter) {
        Self.write(records, continuationMarker: continuationMarker, to: &writer) { writer, entry in entry.write(to: &writer) }
    }
}
