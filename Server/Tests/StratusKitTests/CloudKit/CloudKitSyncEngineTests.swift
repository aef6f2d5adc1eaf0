import Foundation
import StratusCloudKit
import StratusKit
import StratusStoreTesting
import StratusTestSupport
import Testing

/// CKSyncEngine as Apple documents it, on two devices of one user against a live server: the events and their
/// payloads, synchronous pending changes, failures that stay pending, zones made again, conflicts merged, state
/// kept across launches, and deletions that reach the other device.
@Suite struct CloudKitSyncEngineTests {
    /// Two devices of one signed-up user.
    static func twoDevices(_ server: KitTestServer) async throws -> (CKContainer, CKContainer) {
        let first = try await server.signedUp("ann@example.com")
        let second = server.container()
        try await second.signIn(email: "ann@example.com", password: "correct horse battery")
        return (CKContainer(first), CKContainer(second))
    }

    @Test("two devices: a sign-in on the first run, a zone and notes sent, fetched on the other with dates as saved, edits and deletions reaching both")
    func twoDevicesConverge() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server)
            let a = CloudKitSyncDevice(phone)
            let b = CloudKitSyncDevice(laptop)

            a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: CloudKitSyncDevice.zoneID))])
            a.write("n1", "Milk")
            a.write("n2", "Eggs")
            let due = Date(timeIntervalSince1970: 1_790_000_000.123_456)
            a.record("n1")?["due"] = due
            #expect(a.engine.state.pendingRecordZoneChanges == [.saveRecord(CKRecord.ID(recordName: "n1", zoneID: CloudKitSyncDevice.zoneID)), .saveRecord(CKRecord.ID(recordName: "n2", zoneID: CloudKitSyncDevice.zoneID))])
            #expect(a.engine.state.pendingDatabaseChanges.count == 1)

            try await a.engine.sendChanges()
            #expect(a.events.first { $0 != "stateUpdate" } == "signIn", "\(a.events)")
            #expect(a.events.contains("sentZones saved=[\"Notes\"]") && a.events.contains("sent saved=[\"n1\", \"n2\"] failed=[] deleted=[]"), "\(a.events)")
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty && a.engine.state.pendingDatabaseChanges.isEmpty)
            #expect(a.record("n1")?.recordChangeTag != nil)

            try await b.engine.fetchChanges()
            #expect(b.events.first { $0 != "stateUpdate" } == "signIn" && b.events.contains("fetched modified=[\"n1\", \"n2\"] deleted=[]"), "\(b.events)")
            #expect(b.texts == ["n1": "Milk", "n2": "Eggs"])
            #expect(b.record("n1")?["due"] as? Date == a.record("n1")?["due"] as? Date, "a date set on one device reads the same on the other")

            b.write("n1", "Oat milk")
            try await b.engine.sendChanges()
            a.delete("n2")
            try await a.engine.sendChanges()
            try await a.engine.fetchChanges()
            #expect(a.texts == ["n1": "Oat milk"])
            try await b.engine.fetchChanges()
            #expect(b.texts == ["n1": "Oat milk"], "the deletion reached the other device: \(b.events)")
            #expect(b.events.contains { $0.hasPrefix("fetched ") && $0.hasSuffix("deleted=[\"n2\"]") }, "\(b.events)")
        }
    }

    @Test("a refused save stays pending; a missing zone is made again in the same send; a conflict is merged with the server's record")
    func failuresStayPending() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server)
            let a = CloudKitSyncDevice(phone)
            a.recreatesMissingZones = false
            a.write("n1", "Milk")
            try await a.engine.sendChanges()
            #expect(a.events.contains("sent saved=[] failed=[\"n1:zoneNotFound\"] deleted=[]"), "\(a.events)")
            #expect(a.engine.state.pendingRecordZoneChanges.map(\.description) == ["saveRecord(n1)"], "the refused save stays pending")

            a.recreatesMissingZones = true
            try await a.engine.sendChanges()
            #expect(a.events.contains("sentZones saved=[\"Notes\"]") && a.events.last(where: { $0.hasPrefix("sent ") }) == "sent saved=[\"n1\"] failed=[] deleted=[]", "\(a.events)")
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)

            // The laptop writes over a copy it fetched before the phone's edit: serverRecordChanged, merged, sent again.
            let b = CloudKitSyncDevice(laptop)
            try await b.engine.fetchChanges()
            a.write("n1", "Oat milk")
            try await a.engine.sendChanges()
            b.write("n1", "Soy milk")
            try await b.engine.sendChanges()
            #expect(b.events.contains("sent saved=[] failed=[\"n1:serverRecordChanged\"] deleted=[]") && b.events.last(where: { $0.hasPrefix("sent ") }) == "sent saved=[\"n1\"] failed=[] deleted=[]", "\(b.events)")
            try await a.engine.fetchChanges()
            #expect(a.texts == ["n1": "Soy milk"])
        }
    }

    @Test("the state survives a relaunch: pending changes come back and nothing is fetched twice; a send limited to one zone leaves the others pending")
    func stateAcrossLaunches() async throws {
        try await KitTestServer.run { server in
            let (phone, _) = try await Self.twoDevices(server)
            let first = CloudKitSyncDevice(phone)
            let work = CKRecordZone.ID(zoneName: "Work")
            first.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: CloudKitSyncDevice.zoneID)), .saveZone(CKRecordZone(zoneID: work))])
            first.write("n1", "Milk")
            try await first.engine.sendChanges()
            try await first.engine.fetchChanges()
            first.write("w1", "Report", in: work)
            first.write("n2", "Eggs")
            try await first.engine.sendChanges(CKSyncEngine.SendChangesOptions(scope: .zoneIDs([work])))
            #expect(first.engine.state.pendingRecordZoneChanges.map(\.description) == ["saveRecord(n2)"], "\(first.events)")

            // The app quits; its next launch hands the kept state to a new engine.
            let saved = try #require(first.savedState)
            let encoded = try JSONEncoder().encode(saved)
            let second = CloudKitSyncDevice(phone, state: try JSONDecoder().decode(CKSyncEngine.State.Serialization.self, from: encoded))
            #expect(second.engine.state.pendingRecordZoneChanges.map(\.description) == ["saveRecord(n2)"])
            try await second.engine.fetchChanges()
            #expect(!second.events.contains("signIn"), "the same user is no account change: \(second.events)")
            #expect(second.events.filter { $0.hasPrefix("fetched ") } == ["fetched modified=[\"w1\"] deleted=[]"], "only what changed since the last fetch: \(second.events)")
        }
    }

    @Test("engines that sync by themselves: a note written on one device reaches the other, and its deletion too, with no call to fetch or send")
    func automaticSync() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server)
            let a = CloudKitSyncDevice(phone, automaticallySync: true)
            let b = CloudKitSyncDevice(laptop, automaticallySync: true)
            a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: CloudKitSyncDevice.zoneID))])
            a.write("n1", "Milk")
            try await Polling.until("the note reaching the laptop", { b.texts == ["n1": "Milk"] }) { "phone \(a.events), laptop \(b.events)" }
            a.delete("n1")
            try await Polling.until("the deletion reaching the laptop", { b.texts.isEmpty }) { "phone \(a.events), laptop \(b.events)" }
            #expect(a.engine.state.pendingRecordZoneChanges.isEmpty)
        }
    }

    @Test("a fetch limited to one zone leaves the others for later, named in zoneIDsWithUnfetchedServerChanges; untracked changes are asked for and sent")
    func fetchScopesAndUntrackedChanges() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server)
            let a = CloudKitSyncDevice(phone)
            let work = CKRecordZone.ID(zoneName: "Work")
            a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: CloudKitSyncDevice.zoneID)), .saveZone(CKRecordZone(zoneID: work))])
            try await a.engine.sendChanges()
            a.write("n1", "Milk")
            a.write("w1", "Report", in: work)
            try await a.engine.sendChanges()

            let b = CloudKitSyncDevice(laptop)
            try await b.engine.fetchChanges(CKSyncEngine.FetchChangesOptions(scope: .zoneIDs([CloudKitSyncDevice.zoneID])))
            #expect(b.texts == ["n1": "Milk"])
            #expect(b.engine.state.zoneIDsWithUnfetchedServerChanges == [work], "\(b.events)")
            try await b.engine.fetchChanges()
            #expect(b.texts == ["n1": "Milk", "w1": "Report"] && b.engine.state.zoneIDsWithUnfetchedServerChanges.isEmpty)

            b.writeUntracked("n2", "Eggs")
            #expect(b.engine.state.hasPendingUntrackedChanges && b.engine.state.pendingRecordZoneChanges.isEmpty)
            try await b.engine.sendChanges()
            #expect(b.events.contains("sent saved=[\"n2\"] failed=[] deleted=[]"), "\(b.events)")
            #expect(!b.engine.state.hasPendingUntrackedChanges)
            try await a.engine.fetchChanges()
            #expect(a.texts["n2"] == "Eggs")
        }
    }

    @Test("cancelOperations ends a fetch under way with an error; the engine fetches again afterwards")
    func cancelOperations() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server)
            let a = CloudKitSyncDevice(phone)
            a.engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: CloudKitSyncDevice.zoneID))])
            a.write("n1", "Milk")
            try await a.engine.sendChanges()

            let b = CloudKitSyncDevice(laptop)
            b.holdsFetches = true
            let fetch = Task { try await b.engine.fetchChanges() }
            try await Polling.until("the fetch to start", { b.events.contains("willFetchChanges") }) { "\(b.events)" }
            await b.engine.cancelOperations()
            await #expect(throws: (any Error).self) { try await fetch.value }
            #expect(b.texts.isEmpty)
            b.holdsFetches = false
            try await b.engine.fetchChanges()
            #expect(b.texts == ["n1": "Milk"])
        }
    }
}
