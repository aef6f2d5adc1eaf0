import StratusModel
import StratusStore

/// The zone a call reaches: one of the caller's own, or, in the shared database, another user's zone
/// shared with the caller, with the shares that let them in.
struct ZoneTarget: Sendable {
    var zone: ZoneRef
    /// `nil` for the caller's own zones (and the public database).
    var access: ShareAccess?

    /// Of the named records, those the caller may see: all of them in their own zones and zone-wide shares,
    /// otherwise those beneath a share root the caller accepted.
    func visible(_ recordNames: [String], store: any Store) async throws -> Set<String> {
        guard let access, access.zoneWide == nil else { return Set(recordNames) }
        let covering = try await store.coveringShares(of: recordNames, in: zone)
        return Set(recordNames.filter { name in covering[name].flatMap(access.permission(viaShare:)) != nil })
    }

    /// The changes of a feed page the caller may see.
    func visible(_ changes: [RecordChange], store: any Store) async throws -> [RecordChange] {
        guard let access, access.zoneWide == nil else { return changes }
        let names = changes.map { change in
            switch change {
            case .saved(let record): record.recordName
            case .deleted(let deletion): deletion.recordName
            }
        }
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
        let zone = DatabaseRef.privateDatabase(authentication.container.id, authentication.environment, owner: owner).zone(zoneID.zoneName)
        let access = try await store.shareAccess(in: zone, user: user)
        guard !access.isEmpty else {
            throw APIError(.zoneNotFound, "zone \(zoneID.zoneName) of \(owner) is not shared with you")
        }
        return ZoneTarget(zone: zone, access: access)
    }
}
