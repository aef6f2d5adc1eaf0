/// A zone in an answer: `{zoneID, syncToken?, atomic?, deleted?}` (`zones/*` and `changes/database`).
public struct ZoneEntry: Sendable, Hashable, Decodable, JSONWritable {
    public var zoneID: ZoneID
    /// The zone's current change token (`zones/*`).
    public var syncToken: String?
    /// Whether the zone's batches are all or nothing (`zones/*`).
    public var atomic: Bool?
    /// The zone was deleted, or left the user's reach (`changes/database`).
    public var deleted: Bool

    public init(zoneID: ZoneID, syncToken: String? = nil, atomic: Bool? = nil, deleted: Bool = false) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.atomic = atomic
        self.deleted = deleted
    }

    private enum Key: String, CodingKey {
        case zoneID, syncToken, atomic, deleted
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(
            zoneID: try container.decode(ZoneID.self, forKey: .zoneID),
            syncToken: try container.decodeIfPresent(String.self, forKey: .syncToken),
            atomic: try container.decodeIfPresent(Bool.self, forKey: .atomic),
            deleted: try container.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
        )
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let atomic {
            writer.key("atomic")
            writer.bool(atomic)
        }
        if deleted {
            writer.key("deleted")
            writer.bool(true)
        }
        if let syncToken {
            writer.key("syncToken")
            writer.string(syncToken)
        }
        writer.key("zoneID")
        zoneID.write(to: &writer)
        writer.endObject()
    }
}

/// A zone's error in a per-item answer: `{zoneID, serverErrorCode, reason}`.
public struct ZoneErrorEntry: Sendable, Hashable, Decodable, JSONWritable {
    public var zoneID: ZoneID
    public var serverErrorCode: String
    public var reason: String

    public init(zoneID: ZoneID, serverErrorCode: String, reason: String) {
        self.zoneID = zoneID
        self.serverErrorCode = serverErrorCode
        self.reason = reason
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("reason")
        writer.string(reason)
        writer.key("serverErrorCode")
        writer.string(serverErrorCode)
        writer.key("zoneID")
        zoneID.write(to: &writer)
        writer.endObject()
    }
}

/// One item of a `zones/*` answer: the zone, or its error.
public enum ZoneResultEntry: Sendable, Hashable, Decodable, JSONWritable {
    case zone(ZoneEntry)
    case failure(ZoneErrorEntry)

    private enum Key: String, CodingKey {
        case serverErrorCode
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self = container.contains(.serverErrorCode) ? .failure(try ZoneErrorEntry(from: decoder)) : .zone(try ZoneEntry(from: decoder))
    }

    public func write(to writer: inout JSONWriter) {
        switch self {
        case .zone(let zone): zone.write(to: &writer)
        case .failure(let failure): failure.write(to: &writer)
        }
    }
}

/// The answer of `zones/list`, `zones/lookup` and `zones/modify`: `{zones}`, one entry per zone.
public struct ZonesResponse: Sendable, Hashable, Decodable, JSONWritable {
    public var zones: [ZoneResultEntry]

    public init(zones: [ZoneResultEntry]) {
        self.zones = zones
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.array("zones", zones) { writer, zone in zone.write(to: &writer) }
        writer.endObject()
    }
}
