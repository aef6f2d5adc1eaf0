import Foundation
import StratusKit
import StratusStoreTesting
import StratusTestSupport
import Synchronization
import Testing

/// The sync engine on the shared database, and when another user signs in on the device.
@Suite struct SyncEngineSharingTests {
    /// A minimal app store: the records the engine fetched or sent, zones deleted, and account changes.
    final class Device: SyncEngineDelegate, Sendable {
        struct Contents: Sendable {
            var records: [Record.ID: Record] = [:]
            var state: SyncEngine.State.Serialization?
            var deletedZones: [Zone.ID] = []
            var accountChanges: [String] = []
            var failures: [String] = []
        }

        let contents = Mutex(Contents())

        func handleEvent(_ event: SyncEngine.Event, syncEngine: SyncEngine) async {
            contents.withLock { contents in
                switch event {
                case .stateUpdate(let state):
                    contents.state = state
                case .accountChange(let previous, let current):
                    contents.accountChanges.append("\(previous ?? "nobody") -> \(current ?? "nobody")")
                    contents.records = [:]
                case .fetchedDatabaseChanges(_, let deletions):
                    contents.deletedZones += deletions
                    contents.records = contents.records.filter { !deletions.contains($0.key.zoneID) }
                case .fetchedRecordZoneChanges(_, let modifications, let deletions, _):
                    for record in modifications { contents.records[record.recordID] = record }
                    for deletion in deletions { contents.records[deletion.recordID] = nil }
                case .sentRecordZoneChanges(let saved, let failed, _, _):
                    for record in saved { contents.records[record.recordID] = record }
                    contents.failures += failed.map { "\($0.record.recordID.recordName): \($0.error.code)" }
                default:
                    break
                }
            }
        }

        func nextRecordZoneChangeBatch(_ context: SyncEngine.SendChangesContext, syncEngine: SyncEngine) async -> SyncEngine.RecordZoneChangeBatch? {
            await SyncEngine.RecordZoneChangeBatch(pendingChanges: context.pendingChanges) { id in
                self.contents.withLock { $0.records[id] }
            }
        }

        func engine(on database: Database) throws -> SyncEngine {
            try SyncEngine(SyncEngine.Configuration(database: database, stateSerialization: contents.withLock { $0.state }, delegate: self, automaticallySync: false))
        }
    }

    @Test("a participant syncs a shared zone through the shared database, edits in it, and sees it leave when removed")
    func sharedDatabase() async throws {
        try await KitTestServer.run { server in
            let ann = try await server.signedUp("ann@example.com")
            let bob = try await server.signedUp("bob@example.com")
            let zone = try await ann.privateCloudDatabase.save(Zone(zoneName: "Trip"))
            var share = Share(recordZoneID: zone.zoneID)
            share.addParticipant(.emailAddress("bob@example.com"), permission: .readWrite)
            let saved = try await ann.privateCloudDatabase.save(share)
            var plan = Record(recordType: "Plan", recordID: Record.ID(recordName: "day1", zoneID: zone.zoneID))
            plan["title"] = "Museum"
            try await ann.privateCloudDatabase.save(plan)
            _ = try await bob.accept(try await bob.shareMetadata(for: try #require(saved.url)))

            // Bob's engine finds Ann's zone in his shared database, owned by her, with its record.
            let device = Device()
            var engine = try device.engine(on: bob.sharedCloudDatabase)
            try await engine.fetchChanges()
            let sharedID = Record.ID(recordName: "day1", zoneID: Zone.ID(zoneName: "Trip", ownerName: try await ann.userRecordID().recordName))
            #expect(device.contents.withLock { $0.records[sharedID]?["title"] as String? } == "Museum")

            // He edits it through the engine, relaunched from its state in between; Ann sees the edit.
            device.contents.withLock { $0.records[sharedID]?["title"] = "Museum, then lunch" }
            await engine.add(pendingRecordZoneChanges: [.saveRecord(sharedID)])
            await engine.stop()
            engine = try device.engine(on: bob.sharedCloudDatabase)
            try await engine.sendChanges()
            #expect(device.contents.withLock { $0.failures }.isEmpty)
            #expect(try await ann.privateCloudDatabase.record(for: plan.recordID)["title"] as String? == "Museum, then lunch")

            // Ann removes him: a fetch reports the zone gone, and the device drops its records. On PostgreSQL a change
            // feed reports a change once the transactions before it settled, so a loaded machine may take a moment.
            var current = try #require(Share(try await ann.privateCloudDatabase.record(for: saved.recordID)))
            current.removeParticipant(try #require(current.participants.first { $0.role == .user }))
            _ = try await ann.privateCloudDatabase.save(current)
            try await Polling.until("the device hears that the shared zone is gone", within: 15, every: .milliseconds(200)) {
                try await engine.fetchChanges()
                return !device.contents.withLock { $0.deletedZones }.isEmpty
            }
            #expect(device.contents.withLock { $0.deletedZones } == [sharedID.zoneID])
            #expect(device.contents.withLock { $0.records }.isEmpty)
        }
    }

    @Test("another user signed in on the device: accountChange, and the previous user's pending changes and tokens are dropped")
    func accountChange() async throws {
        try await KitTestServer.run { server in
            let ann = try await server.signedUp("ann@example.com")
            let device = Device()
            let zoneID = Zone.ID(zoneName: "Notes")
            var engine = try device.engine(on: ann.privateCloudDatabase)
            await engine.add(pendingDatabaseChanges: [.saveZone(zoneID)])
            var note = Record(recordType: "Note", recordID: Record.ID(recordName: "ann-1", zoneID: zoneID))
            note["title"] = "Ann's"
            device.contents.withLock { $0.records[note.recordID] = note }
            await engine.add(pendingRecordZoneChanges: [.saveRecord(note.recordID)])
            try await engine.sendChanges()
            // A change left pending when Ann signs out.
            note["title"] = "Ann's, edited"
            device.contents.withLock { $0.records[note.recordID] = note }
            await engine.add(pendingRecordZoneChanges: [.saveRecord(note.recordID)])
            await engine.stop()
            let annName = try await ann.userRecordID().recordName
            try await ann.signOut()

            // Carol signs in on the same device; the engine starts from the saved state.
            let carol = ann
            _ = try await carol.signUp(email: "carol@example.com", password: SyncEngineTests.password)
            engine = try device.engine(on: carol.privateCloudDatabase)
            try await engine.fetchChanges()
            let carolName = try await carol.userRecordID().recordName
            #expect(device.contents.withLock { $0.accountChanges } == ["\(annName) -> \(carolName)"])
            #expect(await engine.state.pendingRecordZoneChanges.isEmpty)
            try await engine.sendChanges()
            // Nothing of Ann's went to Carol's database, and Ann's pending edit never left.
            #expect(!(try await carol.privateCloudDatabase.allRecordZones().map(\.zoneID.zoneName).contains("Notes")))
            let annAgain = server.container()
            _ = try await annAgain.signIn(email: "ann@example.com", password: SyncEngineTests.password)
            #expect(try await annAgain.privateCloudDatabase.record(for: note.recordID)["title"] as String? == "Ann's")
        }
    }
}
