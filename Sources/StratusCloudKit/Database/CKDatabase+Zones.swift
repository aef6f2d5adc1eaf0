import Foundation
import StratusKit

extension CKDatabase {
    /// Every zone of the database.
    public func allRecordZones() async throws -> [CKRecordZone] {
        try await call { try await $0.allRecordZones().map(CKRecordZone.init) }
    }

    /// The zone with this ID; `zoneNotFound` when there is none.
    public func recordZone(for zoneID: CKRecordZone.ID) async throws -> CKRecordZone {
        try await call { CKRecordZone(try await $0.recordZone(for: zoneID.stratus)) }
    }

    /// Zones by ID, each with its own result.
    public func recordZones(for ids: [CKRecordZone.ID]) async throws -> [CKRecordZone.ID: Result<CKRecordZone, any Error>] {
        var results: [CKRecordZone.ID: Result<CKRecordZone, any Error>] = [:]
        for id in ids {
            do {
                results[id] = .success(try await recordZone(for: id))
            } catch let error as CKError where error.code != .notAuthenticated && error.code != .networkFailure && error.code != .networkUnavailable {
                results[id] = .failure(error)
            }
        }
        return results
    }

    /// Creates a zone (saving one that exists answers it).
    public func save(_ zone: CKRecordZone) async throws -> CKRecordZone {
        try await modifyRecordZones(saving: [zone], deleting: []).saveResults[zone.zoneID]!.get()
    }

    /// Deletes a zone and every record in it.
    public func deleteRecordZone(withID zoneID: CKRecordZone.ID) async throws -> CKRecordZone.ID {
        try await modifyRecordZones(saving: [], deleting: [zoneID]).deleteResults[zoneID]!.get()
        return zoneID
    }

    /// Creates and deletes zones, each with its own result.
    public func modifyRecordZones(
        saving recordZonesToSave: [CKRecordZone], deleting recordZoneIDsToDelete: [CKRecordZone.ID]
    ) async throws -> (saveResults: [CKRecordZone.ID: Result<CKRecordZone, any Error>], deleteResults: [CKRecordZone.ID: Result<Void, any Error>]) {
        let results = try await call {
            try await $0.modifyRecordZones(saving: recordZonesToSave.map { Zone(zoneID: $0.zoneID.stratus) }, deleting: recordZoneIDsToDelete.map(\.stratus))
        }
        var saves: [CKRecordZone.ID: Result<CKRecordZone, any Error>] = [:]
        for zone in recordZonesToSave {
            saves[zone.zoneID] = results.saveResults[zone.zoneID.stratus].map { cloudKitResult($0, CKRecordZone.init) } ?? .failure(CKError(.internalError))
        }
        var deletes: [CKRecordZone.ID: Result<Void, any Error>] = [:]
        for id in recordZoneIDsToDelete {
            deletes[id] = results.deleteResults[id.stratus].map { cloudKitResult($0, { $0 }) } ?? .failure(CKError(.internalError))
        }
        return (saves, deletes)
    }

    // MARK: - Completion handlers

    public func fetchAllRecordZones(completionHandler: @escaping @Sendable ([CKRecordZone]?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.allRecordZones() }
    }

    public func fetch(withRecordZoneID zoneID: CKRecordZone.ID, completionHandler: @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.recordZone(for: zoneID) }
    }

    public func save(_ zone: CKRecordZone, completionHandler: @escaping @Sendable (CKRecordZone?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.save(zone) }
    }

    public func delete(withRecordZoneID zoneID: CKRecordZone.ID, completionHandler: @escaping @Sendable (CKRecordZone.ID?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.deleteRecordZone(withID: zoneID) }
    }
}
