/// The answer of `changes/database` (and of the older `zones/changes`): the zones changed since a token.
public struct DatabaseChangesResponse: Sendable, Hashable, Decodable, JSONWritable {
    /// Changed zones, and deleted ones (`deleted: true`).
    public var zones: [ZoneEntry]
    /// Where the next call starts.
    public var syncToken: String
    /// More changes wait: call again with ``syncToken``.
    public var moreComing: Bool
    /// `zones/changes` also answers the token under this name, the one the 2016 reference gives it.
    public var metaSyncToken: String?

    public init(zones: [ZoneEntry], syncToken: String, moreComing: Bool, metaSyncToken: String? = nil) {
        self.zones = zones
        self.syncToken = syncToken
        self.moreComing = moreComing
        self.metaSyncToken = metaSyncToken
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let metaSyncToken {
            writer.key("metaSyncToken")
            writer.string(metaSyncToken)
        }
        writer.key("moreComing")
        writer.bool(moreComing)
        writer.key("syncToken")
        writer.string(syncToken)
        writer.array("zones", zones) { writer, zone in zone.write(to: &writer) }
        writer.endObject()
    }
}

/// One zone's page of a `changes/zone` answer: `{zoneID, records, syncToken, moreComing}`.
public struct ZoneChangesEntry: Sendable, Hashable, Decodable, JSONWritable {
    public var zoneID: ZoneID
    /// Saved records in full and deletions (`deleted: true`), in commit order.
    public var records: [RecordResultEntry]
    public var syncToken: String
    public var moreComing: Bool

    public init(zoneID: ZoneID, records: [RecordResultEntry], syncToken: String, moreComing: Bool) {
        self.zoneID = zoneID
        self.records = records
        self.syncToken = syncToken
        self.moreComing = moreComing
    }

    /// Writes a zone's page, its records written by `records` (a `records` key the server renders as it goes).
    public static func write(
        zoneID: ZoneID, syncToken: String, moreComing: Bool, to writer: inout JSONWriter, records: (inout JSONWriter) -> Void
    ) {
        writer.beginObject()
        writer.key("moreComing")
        writer.bool(moreComing)
        records(&writer)
        writer.key("syncToken")
        writer.string(syncToken)
        writer.key("zoneID")
        zoneID.write(to: &writer)
        writer.endObject()
    }

    public func write(to writer: inout JSONWriter) {
        Self.write(zoneID: zoneID, syncToken: syncToken, moreComing: moreComing, to: &writer) { writer in
            writer.array("records", records) { writer, entry in entry.write(to: &writer) }
        }
    }
}

/// One item of a `changes/zone` answer: the zone's page, or its error.
public enum ZoneChangesResult: Sendable, Hashable, Decodable, JSONWritable {
    case changes(ZoneChangesEntry)
    case failure(ZoneErrorEntry)

    private enum Key: String, CodingKey {
        case serverErrorCode
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self = container.contains(.serverErrorCode) ? .failure(try ZoneErrorEntry(from: decoder)) : .changes(try ZoneChangesEntry(from: decoder))
    }

    public func write(to writer: inout JSONWriter) {
        switch self {
        case .changes(let changes): changes.write(to: &writer)
        case .failure(let failure): failure.write(to: &writer)
        }
    }
}

/// The answer of `changes/zone`: `{zones}`, one item per zone asked.
public struct ZoneChangesResponse: Sendable, Hashable, Decodable, JSONWritable {
    public var zones: [ZoneChangesResult]

    public init(zones: [ZoneChangesResult]) {
        self.zones = zones
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.array("zones", zones) { writer, zone in zone.write(to: &writer) }
        writer.endObject()
    }
}
