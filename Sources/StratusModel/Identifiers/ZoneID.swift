/// Identifies a zone on the wire: `{zoneName, ownerRecordName?}` (`docs/protocol.md#zone-ids`).
public struct ZoneID: Sendable, Hashable, Decodable, JSONWritable {
    /// The name of every database's default zone.
    public static let defaultZoneName = "_defaultZone"

    public var zoneName: String
    /// The zone owner's user record name; absent means the caller.
    public var ownerRecordName: String?

    public init(zoneName: String = ZoneID.defaultZoneName, ownerRecordName: String? = nil) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }

    /// The default zone of a database.
    public static var `default`: ZoneID { ZoneID() }

    /// Whether this is the default zone.
    public var isDefault: Bool { zoneName == Self.defaultZoneName }

    private enum CodingKeys: String, CodingKey {
        case zoneName, ownerRecordName
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        zoneName = try container.decodeIfPresent(String.self, forKey: .zoneName) ?? Self.defaultZoneName
        ownerRecordName = try container.decodeIfPresent(String.self, forKey: .ownerRecordName)
    }
}

extension ZoneID {
    /// Writes the zone ID dictionary.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("zoneName")
        writer.string(zoneName)
        if let ownerRecordName {
            writer.key("ownerRecordName")
            writer.string(ownerRecordName)
        }
        writer.endObject()
    }
}
