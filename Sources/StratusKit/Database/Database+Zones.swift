import Foundation
internal import StratusModel

/// Record zones.
extension Database {
    /// Creates a zone (saving one that exists changes nothing).
    @discardableResult
    public func save(_ zone: Zone) async throws -> Zone {
        try await modifyRecordZones(saving: [zone], deleting: []).saveResults[zone.zoneID]!.get()
    }

    /// Deletes a zone and every record in it. In the shared database, leaves the zone's shares instead.
    public func deleteRecordZone(withID zoneID: Zone.ID) async throws {
        try await modifyRecordZones(saving: [], deleting: [zoneID]).deleteResults[zoneID]!.get()
    }

    /// Creates and deletes zones; each answers its own result.
    public func modifyRecordZones(
        saving zonesToSave: [Zone], deleting zoneIDsToDelete: [Zone.ID]
    ) async throws -> (saveResults: [Zone.ID: Result<Zone, any Error>], deleteResults: [Zone.ID: Result<Void, any Error>]) {
        let operations = zonesToSave.map { JSONValue.object(["operationType": .string("create"), "zone": .object(["zoneID": $0.zoneID.wire])]) }
            + zoneIDsToDelete.map { JSONValue.object(["operationType": .string("delete"), "zone": .object(["zoneID": $0.wire])]) }
        let answer = try await container.post(databaseScope, "zones/modify", .object(["operations": .array(operations)]))
        let items = answer["zones"]?.arrayValue ?? []
        var saves: [Zone.ID: Result<Zone, any Error>] = [:]
        var deletes: [Zone.ID: Result<Void, any Error>] = [:]
        for (zone, item) in zip(zonesToSave, items) {
            saves[zone.zoneID] = Result { try self.zone(fromItem: item) }
        }
        for (zoneID, item) in zip(zoneIDsToDelete, items.dropFirst(zonesToSave.count)) {
            deletes[zoneID] = Result {
                if let error = self.zoneFailure(item) { throw error }
            }
        }
        return (saves, deletes)
    }

    /// Every zone of the database; in the shared database, the zones shared with the user, with their owners.
    public func allRecordZones() async throws -> [Zone] {
        let answer = try await container.post(databaseScope, "zones/list", .object([:]))
        return try (answer["zones"]?.arrayValue ?? []).map(zone(fromItem:))
    }

    /// One zone.
    /// - Throws: ``StratusError`` `zoneNotFound`.
    public func recordZone(for zoneID: Zone.ID) async throws -> Zone {
        let answer = try await container.post(databaseScope, "zones/lookup", .object(["zones": .array([zoneID.wire])]))
        guard let item = answer["zones"]?.arrayValue?.first else { throw StratusError(.zoneNotFound, "zone \(zoneID) does not exist") }
        return try zone(fromItem: item)
    }

    private func zone(fromItem item: JSONValue) throws -> Zone {
        if let error = zoneFailure(item) { throw error }
        var zone = Zone(zoneID: Zone.ID(wire: item.objectValue?["zoneID"], currentUser: container.currentUserRecordName))
        zone.changeToken = item.objectValue?["syncToken"]?.stringValue.map(SyncToken.init)
        return zone
    }

    private func zoneFailure(_ item: JSONValue) -> StratusError? {
        guard let object = item.objectValue, object["serverErrorCode"] != nil else { return nil }
        return Container.error(from: object, status: 200)
    }
}
