/// A record zone: the unit of atomic commits and of sync (`CKRecordZone`).
public struct Zone: Sendable, Hashable, Codable {
    /// Names a zone: its name and its owner (`CKRecordZone.ID`).
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        /// The name of every database's default zone.
        public static let defaultZoneName = "_defaultZone"
        /// Stands for the signed-in user as a zone's owner.
        public static let currentUser = "__defaultOwner__"

        public var zoneName: String
        /// The owner's user record name; ``currentUser`` for one's own zones.
        public var ownerName: String

        public init(zoneName: String, ownerName: String = ID.currentUser) {
            self.zoneName = zoneName
            self.ownerName = ownerName
        }

        /// The default zone of a database.
        public static let `default` = ID(zoneName: defaultZoneName)

        public var description: String { ownerName == Self.currentUser ? zoneName : "\(zoneName) (\(ownerName))" }
    }

    public var zoneID: ID
    /// The zone's change token as the server last reported it.
    public internal(set) var changeToken: SyncToken?

    public init(zoneID: ID) {
        self.zoneID = zoneID
    }

    public init(zoneName: String) {
        self.init(zoneID: ID(zoneName: zoneName))
    }
}

/// Where a sync left off: send it back to get only what changed since (`CKServerChangeToken`).
public struct SyncToken: Sendable, Hashable, Codable {
    public var rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }
}
