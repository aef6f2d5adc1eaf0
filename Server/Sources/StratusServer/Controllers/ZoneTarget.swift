import StratusModel
import StratusServices
import StratusStore

/// The zone a call reaches: one of the caller's own, or, in the shared database, another user's zone
/// shared with the caller, with the shares that let them in.
struct ZoneTarget: Sendable {
    var zone: ZoneRef
    /// `nil` for the caller's own zones (and the public database).
    var access: ShareAccess?

    /// Of the named records, those the caller may see: all of them in their own zones and zone-wide shares,
    /// otherwise those beneath a share root the caller accepted (``ShareAccess/reached(_:covering:)``).
    func visible(_ recordNames: [String], store: any Store) async throws -> Set<String> {
        guard let access, access.zoneWide == nil else { return Set(recordNames) }
        let covering = try await store.coveringShares(of: recordNames, in: zone)
        return access.reached(recordNames, covering: covering)
    }

    /// The changes of a feed page the caller may see.
    func visible(_ changes: [RecordChange], store: any Store) async throws -> [RecordChange] {
        guard let access, access.zoneWide == nil else { return changes }
        let names = changes.map(\.recordName)
        let shown = try await visible(names, store: store)
        return zip(names, changes).filter { shown.contains($0.0) }.map(\.1)
    }
}

extension DatabaseCall {
    /// The zone a request's `zoneID` names. In the shared database it must name a zone shared with the
    /// caller, with its owner: `{zoneName, ownerRecordName}`.
    /// - Throws: `ZONE_NOT_FOUND` for a zone not shared with the caller, as for one that does not exist.
    func target(_ zoneID: ZoneID?, store: any Store) async throws -> ZoneTarget {
        guard scope == .shared else { return ZoneTarget(zone: try zone(zoneID), access: nil) }
        let zone = try sharedZone(zoneID)
        let access = try await store.shareAccess(in: zone, user: try requireUser())
        guard !access.isEmpty else { throw Self.notShared(zone) }
        return ZoneTarget(zone: zone, access: access)
    }

    /// The other user's zone a shared-database request's `zoneID` names, checked for shape only.
    /// - Throws: `ZONE_NOT_FOUND` for a zone ID that cannot name a zone shared with the caller.
    func sharedZone(_ zoneID: ZoneID?) throws -> ZoneRef {
        let user = try requireUser()
        guard let zoneID, !zoneID.isDefault, let owner = zoneID.ownerRecordName else {
            throw APIError(.zoneNotFound, "the shared database holds only zones shared with you: name one by zoneName and ownerRecordName")
        }
        guard owner != user else {
            throw APIError(.zoneNotFound, "zone \(zoneID.zoneName) is yours: it is in your private database, not your shared one")
        }
        guard RecordNames.isValidName(zoneID.zoneName) else {
            throw APIError.badRequest("zoneName '\(zoneID.zoneName)' is not valid")
        }
        return DatabaseRef.privateDatabase(authentication.container.id, authentication.environment, owner: owner).zone(zoneID.zoneName)
    }

    /// The answer for a zone the caller reaches no share in, the same as for one that does not exist.
    static func notShared(_ zone: ZoneRef) -> APIError {
        APIError(storageError: ZoneRules.notShared(zone))
    }

    /// What the caller may read here (``RecordReader``): in the public database, the record types' grants decide.
    func reader(store: any Store) async throws -> RecordReader {
        guard scope == .public else { return RecordReader(caller: caller) }
        return RecordReader(caller: caller, grants: try await store.schema(containerID: authentication.container.id, environment: authentication.environment))
    }
}
