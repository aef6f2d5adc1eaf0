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
        let operations = zonesToSave.map { ModifyZonesRequest.Operation(operationType: .create, zone: .init(zoneID: $0.zoneID.model)) }
            + zoneIDsToDelete.map { ModifyZonesRequest.Operation(operationType: .delete, zone: .init(zoneID: $0.model)) }
        let answer = try await container.post(databaseScope, "zones/modify", ModifyZonesRequest(operations: operations), answer: ZonesResponse.self)
        var saves: [Zone.ID: Result<Zone, any Error>] = [:]
        var deletes: [Zone.ID: Result<Void, any Error>] = [:]
        for (zone, entry) in zip(zonesToSave, answer.zones) {
            saves[zone.zoneID] = Result { try self.zone(from: entry) }
        }
        for (zoneID, entry) in zip(zoneIDsToDelete, answer.zones.dropFirst(zonesToSave.count)) {
            deletes[zoneID] = Result {
                if case .failure(let failure) = entry { throw Self.error(from: failure) }
            }
        }
        return (saves, deletes)
    }

    /// Every zone of the database; in the shared database, the zones shared with the user, with their owners.
    public func allRecordZones() async throws -> [Zone] {
        let answer = try await container.post(databaseScope, "zones/list", EmptyRequest(), answer: ZonesResponse.self)
        return try answer.zones.map(zone(from:))
    }

    /// One zone.
    /// - Throws: ``StratusError`` `zoneNotFound`.
    public func recordZone(for zoneID: Zone.ID) async throws -> Zone {
        let answer = try await container.post(databaseScope, "zones/lookup", LookupZonesRequest(zones: [zoneID.model]), answer: ZonesResponse.self)
        guard let entry = answer.zones.first else { throw StratusError(.zoneNotFound, "zone \(zoneID) does not exist") }
        return try zone(from: entry)
    }

    private func zone(from entry: ZoneResultEntry) throws -> Zone {
        switch entry {
        case .zone(let model):
            var zone = Zone(zoneID: Zone.ID(model: model.zoneID, currentUser: container.currentUserRecordName))
            zone.changeToken = model.syncToken.map(SyncToken.init)
            return zone
        case .failure(let failure):
            throw Self.error(from: failure)
        }
    }

    private static func error(from failure: ZoneErrorEntry) -> StratusError {
        Container.error(serverErrorCode: failure.serverErrorCode, reason: failure.reason)
    }
}
