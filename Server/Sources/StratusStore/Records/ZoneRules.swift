import StratusModel

/// CloudKit's rules for zones, once for every backend: which operations are allowed, that a database's default
/// zone always exists for clients (a backend stores it on its first write), and how a missing zone is reported.
public enum ZoneRules {
    /// Checks a zone operation before it touches storage.
    /// - Throws: ``StorageError/Code/invalidArgument`` for a custom zone in the public database, a name that is
    ///   not valid, or the deletion of a default zone.
    public static func check(_ operation: ZoneOperation, on zone: ZoneRef) throws(StorageError) {
        if zone.database.scope == .public && !zone.isDefault {
            throw StorageError(.invalidArgument, "the public database has only the default zone")
        }
        switch operation {
        case .create:
            guard RecordNames.isValidName(zone.zoneName), zone.isDefault || !zone.zoneName.hasPrefix("_") else {
                throw StorageError(.invalidArgument, "zone name '\(zone.zoneName)' is not valid")
            }
        case .delete:
            if zone.isDefault { throw StorageError(.invalidArgument, "the default zone cannot be deleted") }
        }
    }

    /// The error for a zone that does not exist.
    public static func missing(_ zoneName: String) -> StorageError {
        StorageError(.zoneNotFound, "zone \(zoneName) does not exist")
    }

    /// The error for another user's zone the caller reaches no share in: the same as for a zone that does not
    /// exist, so that nobody learns of zones not shared with them.
    public static func notShared(_ zone: ZoneRef) -> StorageError {
        StorageError(.zoneNotFound, "zone \(zone.zoneName) of \(zone.database.ownerRecordName) is not shared with you")
    }

    /// Checks that a zone without a stored row may be written to: a default zone is stored on its first write,
    /// a custom zone must have been created.
    /// - Throws: ``StorageError/Code/zoneNotFound`` for a custom zone.
    public static func requireCreatedOnWrite(_ zone: ZoneRef) throws(StorageError) {
        guard zone.isDefault else { throw missing(zone.zoneName) }
    }

    /// How a default zone that no write has stored yet is described: it has no change yet.
    public static func emptyDefaultZone(in database: DatabaseRef) -> ZoneInfo {
        ZoneInfo(zoneID: database.wireZoneID(ZoneID.defaultZoneName), syncToken: ZoneSyncToken(zone: 0, sequence: 0).text, atomic: false)
    }

    /// Every zone of a database as clients see it: the stored live zones, with the default zone first when no
    /// write has stored it yet.
    public static func listing(_ stored: [ZoneInfo], in database: DatabaseRef) -> [ZoneInfo] {
        stored.contains(where: { $0.zoneID.isDefault }) ? stored : [emptyDefaultZone(in: database)] + stored
    }

    /// The zones a lookup finds: the stored live zones it named, and the default zone when named.
    public static func found(_ zoneNames: [String], stored: [String: ZoneInfo], in database: DatabaseRef) -> [String: ZoneInfo] {
        var found = stored
        if zoneNames.contains(ZoneID.defaultZoneName), found[ZoneID.defaultZoneName] == nil {
            found[ZoneID.defaultZoneName] = emptyDefaultZone(in: database)
        }
        return found
    }
}
