import Foundation
import StratusCloudKit
import Testing

/// Fetching changes as CloudKit apps that keep their own copy do: database changes, zone changes from archived
/// tokens, and the zone and change operations, against a live server.
@Suite struct CloudKitChangesTests {
    @Test("database and zone changes from archived tokens report saves and deletions, through the async calls and the operations")
    func changesFromTokens() async throws {
        try await KitTestServer.run { server in
            let database = try await CloudKitRecordsTests.signedUp(server, "ann@example.com").privateCloudDatabase
            let zoneID = CKRecordZone.ID(zoneName: "Notes")
            let made = CKModifyRecordZonesOperation(recordZonesToSave: [CKRecordZone(zoneID: zoneID)], recordZoneIDsToDelete: nil)
            let (savedZones, zoneError) = try await OperationBlocks.answer("the zone's creation") { (done: @escaping @Sendable (([CKRecordZone]?, (any Error)?)) -> Void) in
                made.modifyRecordZonesCompletionBlock = { zones, _, error in done((zones, error)) }
                database.add(made)
            }
            #expect(zoneError == nil && savedZones?.map(\.zoneID) == [zoneID], "\(String(describing: zoneError))")

            let first = try await database.databaseChanges(since: nil)
            #expect(first.modifications.map(\.zoneID.zoneName).contains("Notes"))
            let one = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "one", zoneID: zoneID))
            one["title"] = "one"
            let two = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "two", zoneID: zoneID))
            two["title"] = "two"
            _ = try await database.modifyRecords(saving: [one, two], deleting: [])
            let initial = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil)
            #expect(Set(initial.modificationResultsByID.keys.map(\.recordName)) == ["one", "two"])

            // The token survives an archive, as apps keep it between launches.
            let kept = try NSKeyedArchiver.archivedData(withRootObject: initial.changeToken, requiringSecureCoding: true)
            let token = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKServerChangeToken.self, from: kept))
            _ = try await database.deleteRecord(withID: one.recordID)
            let fetchedTwo = try await database.record(for: two.recordID)
            fetchedTwo["title"] = "two, edited"
            _ = try await database.save(fetchedTwo)

            let operation = CKFetchRecordZoneChangesOperation(
                recordZoneIDs: [zoneID], configurationsByRecordZoneID: [zoneID: .init(previousServerChangeToken: token, resultsLimit: 0, desiredKeys: nil)]
            )
            let changed = LockedBox<[String]>([])
            let deleted = LockedBox<[String]>([])
            operation.recordWasChangedBlock = { id, result in
                changed.update { $0.append("\(id.recordName): \((try? result.get())?["title"] as? String ?? "?")") }
            }
            operation.recordWithIDWasDeletedBlock = { id, type in deleted.update { $0.append("\(id.recordName) (\(type))") } }
            let zoneResult = LockedBox<String>("")
            operation.recordZoneFetchResultBlock = { zone, result in
                zoneResult.update { $0 = "\(zone.zoneName): \((try? result.get()) != nil ? "fetched" : "failed")" }
            }
            let ended = try await OperationBlocks.answer("the zone's changes") { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
                operation.fetchRecordZoneChangesResultBlock = { done($0) }
                database.add(operation)
            }
            #expect((try? ended.get()) != nil, "\(ended)")
            #expect(changed.value == ["two: two, edited"])
            #expect(deleted.value == ["one (Note)"])
            #expect(zoneResult.value == "Notes: fetched")

            let latest = first.changeToken
            _ = try await database.deleteRecordZone(withID: zoneID)
            let zoneChanges = CKFetchDatabaseChangesOperation(previousServerChangeToken: latest)
            let deletedZones = LockedBox<[String]>([])
            zoneChanges.recordZoneWithIDWasDeletedBlock = { zone in deletedZones.update { $0.append(zone.zoneName) } }
            let databaseResult = try await OperationBlocks.answer("the database's changes") { (done: @escaping @Sendable (Result<(serverChangeToken: CKServerChangeToken, moreComing: Bool), any Error>) -> Void) in
                zoneChanges.fetchDatabaseChangesResultBlock = { done($0) }
                database.add(zoneChanges)
            }
            #expect((try? databaseResult.get())?.moreComing == false)
            #expect(deletedZones.value == ["Notes"])
        }
    }

    @Test("CKFetchRecordZonesOperation fetches every zone, and reports a missing one with zoneNotFound")
    func fetchZones() async throws {
        try await KitTestServer.run { server in
            let database = try await CloudKitRecordsTests.signedUp(server, "bo@example.com").privateCloudDatabase
            _ = try await database.save(CKRecordZone(zoneName: "Work"))
            let all = CKFetchRecordZonesOperation.fetchAllRecordZonesOperation()
            let (zones, error) = try await OperationBlocks.answer("every zone") { (done: @escaping @Sendable (([CKRecordZone.ID: CKRecordZone]?, (any Error)?)) -> Void) in
                all.fetchRecordZonesCompletionBlock = { zones, error in done((zones, error)) }
                database.add(all)
            }
            #expect(error == nil && Set(zones?.keys.map(\.zoneName) ?? []) == [CKRecordZoneDefaultName, "Work"])

            let some = CKFetchRecordZonesOperation(recordZoneIDs: [CKRecordZone.ID(zoneName: "Work"), CKRecordZone.ID(zoneName: "Gone")])
            let results = LockedBox<[String: String]>([:])
            some.perRecordZoneResultBlock = { id, result in
                results.update {
                    $0[id.zoneName] = switch result {
                    case .success: "found"
                    case .failure(let error): "\((error as? CKError)?.code ?? .internalError)"
                    }
                }
            }
            _ = try await OperationBlocks.answer("two zones") { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
                some.fetchRecordZonesResultBlock = { done($0) }
                database.add(some)
            }
            #expect(results.value == ["Work": "found", "Gone": "zoneNotFound"])
        }
    }
}
