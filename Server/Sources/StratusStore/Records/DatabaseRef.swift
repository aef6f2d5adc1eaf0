import StratusModel

/// One database of one container environment: the public one, or one user's private one.
///
/// Every record and zone belongs to exactly one `DatabaseRef`; nothing crosses between them.
public struct DatabaseRef: Sendable, Hashable, Codable {
    /// The owner of the public database's zones.
    public static let publicOwner = "_public"

    public var containerID: String
    public var environment: Environment
    public var scope: DatabaseScope
    /// The user whose private database this is; ``publicOwner`` for the public database.
    public var ownerRecordName: String

    public init(containerID: String, environment: Environment, scope: DatabaseScope, ownerRecordName: String) {
        self.containerID = containerID
        self.environment = environment
        self.scope = scope
        self.ownerRecordName = ownerRecordName
    }

    /// The public database of a container environment.
    public static func publicDatabase(_ containerID: String, _ environment: Environment) -> DatabaseRef {
        DatabaseRef(containerID: containerID, environment: environment, scope: .public, ownerRecordName: publicOwner)
    }

    /// One user's private database.
    public static func privateDatabase(_ containerID: String, _ environment: Environment, owner: String) -> DatabaseRef {
        DatabaseRef(containerID: containerID, environment: environment, scope: .private, ownerRecordName: owner)
    }

    /// A zone of this database.
    public func zone(_ zoneName: String) -> ZoneRef {
        ZoneRef(database: self, zoneName: zoneName)
    }

    /// The zone ID as clients see it: the owner is named in private databases only.
    public func wireZoneID(_ zoneName: String) -> ZoneID {
        ZoneID(zoneName: zoneName, ownerRecordName: scope == .public ? nil : ownerRecordName)
    }
}

/// One zone of one database.
public struct ZoneRef: Sendable, Hashable, Codable {
    public var database: DatabaseRef
    public var zoneName: String

    public init(database: DatabaseRef, zoneName: String) {
        self.database = database
        self.zoneName = zoneName
    }

    /// The zone ID as clients see it.
    public var wireZoneID: ZoneID { database.wireZoneID(zoneName) }
    /// Whether this is the default zone, which always exists and is never atomic.
    public var isDefault: Bool { zoneName == ZoneID.defaultZoneName }
}

/// Who is asking: a signed-in user or nobody, from which device, holding which custom roles.
public struct Caller: Sendable, Hashable {
    public var userRecordName: String?
    public var deviceID: String
    /// The custom roles assigned to the user in the environment addressed (`Admin`...).
    public var roles: Set<String>
    /// Acts with every permission (operators; server-to-server keys bound to no role).
    public var hasAllPermissions: Bool
    /// Removes a deleted account's data: the only caller that may delete `Users` records.
    public var isDeletingAccount: Bool

    public init(
        userRecordName: String?, deviceID: String = "web", roles: Set<String> = [], hasAllPermissions: Bool = false, isDeletingAccount: Bool = false
    ) {
        self.userRecordName = userRecordName
        self.deviceID = deviceID
        self.roles = roles
        self.hasAllPermissions = hasAllPermissions
        self.isDeletingAccount = isDeletingAccount
    }

    /// An anonymous caller.
    public static let anonymous = Caller(userRecordName: nil)
}
