import Foundation
import StratusKit

/// The owner name of the signed-in user's zones, as CloudKit spells it.
public let CKCurrentUserDefaultName = Zone.ID.currentUser
/// The name of every database's default zone.
public let CKRecordZoneDefaultName = Zone.ID.defaultZoneName

/// A zone of a database: a name and its owner.
open class CKRecordZone: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    /// What a zone can do.
    public struct Capabilities: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// The zone keeps a change history to fetch changes from.
        public static let fetchChanges = Capabilities(rawValue: 1 << 0)
        /// The zone saves a batch all or none.
        public static let atomic = Capabilities(rawValue: 1 << 1)
        /// The zone can be shared whole.
        public static let sharing = Capabilities(rawValue: 1 << 2)
        /// The zone can be shared whole (the capability CloudKit names for zone-wide sharing).
        public static let zoneWideSharing = Capabilities(rawValue: 1 << 3)
    }

    public typealias ID = CKRecordZoneID

    public let zoneID: ID
    /// What the zone can do: a custom zone fetches changes and saves atomically; the default zone does neither.
    public internal(set) var capabilities: Capabilities
    /// The share of a zone shared whole.
    public internal(set) var share: CKRecord.Reference?

    public convenience init(zoneName: String) {
        self.init(zoneID: ID(zoneName: zoneName))
    }

    public init(zoneID: ID) {
        self.zoneID = zoneID
        capabilities = zoneID.zoneName == CKRecordZoneDefaultName ? [] : [.fetchChanges, .atomic, .sharing, .zoneWideSharing]
    }

    /// The default zone.
    public static func `default`() -> CKRecordZone { CKRecordZone(zoneID: .default) }

    convenience init(_ zone: Zone) {
        self.init(zoneID: ID(zone.zoneID))
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(zoneID, forKey: "zoneID")
        coder.encode(Int64(capabilities.rawValue), forKey: "capabilities")
    }

    public required init?(coder: NSCoder) {
        guard let zoneID = coder.decodeObject(of: ID.self, forKey: "zoneID") else { return nil }
        self.zoneID = zoneID
        capabilities = Capabilities(rawValue: UInt(coder.decodeInt64(forKey: "capabilities")))
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = CKRecordZone(zoneID: zoneID)
        copy.capabilities = capabilities
        copy.share = share
        return copy
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? CKRecordZone)?.zoneID == zoneID
    }

    public override var hash: Int { zoneID.hash }
}

/// Names a zone: its name and its owner (`CKCurrentUserDefaultName` for the signed-in user) (`CKRecordZone.ID`).
public final class CKRecordZoneID: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public let zoneName: String
    public let ownerName: String

    public init(zoneName: String = CKRecordZoneDefaultName, ownerName: String = CKCurrentUserDefaultName) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    /// The default zone's ID.
    public static let `default` = CKRecordZoneID()

    convenience init(_ id: Zone.ID) {
        self.init(zoneName: id.zoneName, ownerName: id.ownerName)
    }

    var stratus: Zone.ID { Zone.ID(zoneName: zoneName, ownerName: ownerName) }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(zoneName as NSString, forKey: "zoneName")
        coder.encode(ownerName as NSString, forKey: "ownerName")
    }

    public init?(coder: NSCoder) {
        guard let zoneName = coder.decodeObject(of: NSString.self, forKey: "zoneName"),
            let ownerName = coder.decodeObject(of: NSString.self, forKey: "ownerName")
        else { return nil }
        self.zoneName = zoneName as String
        self.ownerName = ownerName as String
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordZoneID else { return false }
        return zoneName == other.zoneName && ownerName == other.ownerName
    }

    public override var hash: Int { zoneName.hashValue ^ ownerName.hashValue }

    public override var description: String { "<CKRecordZoneID: zoneName=\(zoneName), ownerName=\(ownerName)>" }
}
