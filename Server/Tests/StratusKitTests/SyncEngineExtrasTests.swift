import Foundation
import StratusKit
import StratusKitTesting
import StratusStoreTesting
import Testing

/// What the sync engine does beyond CKSyncEngine, against a live server: batch receipts, a timeline, a scope that
/// widens and narrows, and fresh installs that do not replay deletions.
@Suite struct SyncEngineExtrasTests {
    @Test("each sent batch has a numbered receipt naming what became of every change: saved, refused, or still pending")
    func batchReceipts() async throws {
        try await KitTestServer.run { server in
            let network = FaultInjectingTransport()
            let phone = try await SyncEngineTests.device(server, "gil@example.com", signUp: true, transport: network)
            let laptop = try await SyncEngineTests.device(server, "gil@example.com")
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            for index in 0..<250 { await phone.edit("n\(index)", title: "Note \(index)") }
            try await phone.engine.sendChanges()
            let first = phone.contents.withLock { $0.receipts }
            #expect(first.map(\.number) == [1, 2])
            #expect(first.map(\.entries.count) == [200, 50])
            #expect(first.allSatisfy { $0.isComplete && $0.label == "notes" })
            #expect(Set(first.flatMap(\.entries).map(\.change.recordID.recordName)) == Set((0..<250).map { "n\($0)" }))

            // A conflict is refused in the receipt; a batch the network lost is pending in it, and numbering goes
            // on across a relaunch.
            try await laptop.engine.fetchChanges()
            await phone.edit("n1", title: "Phone's")
            try await phone.engine.sendChanges()
            await laptop.edit("n1", title: "Laptop's")
            await laptop.edit("n2", title: "Laptop's too")
            network.update { $0.offline = true }
            await phone.edit("n3", title: "Offline")
            await #expect(throws: StratusError.self) { try await phone.engine.sendChanges() }
            try await SyncEngineTests.relaunch(phone)
            network.update { $0.offline = false }
            try await phone.engine.sendChanges()
            let phoneReceipts = phone.contents.withLock { $0.receipts }.suffix(3)
            #expect(phoneReceipts.map(\.number) == [3, 4, 5])
            let lost = try #require(phoneReceipts.dropFirst().first)
            #expect(lost.entries.map(\.change) == [.saveRecord(phone.id("n3"))])
            #expect(lost.entries.allSatisfy { if case .pending(let error) = $0.outcome { error.code == .networkUnavailable } else { false } })
            #expect(phoneReceipts.last?.isComplete == true && phoneReceipts.last?.entries.map(\.change) == [.saveRecord(phone.id("n3"))])

            // The laptop's own engine counts its own batches; n1 is refused with the conflict, n2 is saved.
            let before = laptop.contents.withLock { $0.receipts.count }
            try await laptop.engine.sendChanges()
            let conflicted = try #require(laptop.contents.withLock { $0.receipts.dropFirst(before).first })
            #expect(conflicted.number == 1)
            for entry in conflicted.entries {
                switch (entry.change.recordID.recordName, entry.outcome) {
                case ("n1", .failed(let error)): #expect(error.code == .serverRecordChanged)
                case ("n2", .saved(let record)): #expect(record["title"] as String? == "Laptop's too")
                default: Issue.record("unexpected \(entry.change): \(entry.outcome)")
                }
            }
            #expect(!conflicted.isComplete)
        }
    }

    @Test("an atomic group larger than a batch is saved in one request; a conflict in a group saves none of it until the app merges and sends the group again")
    func atomicGroups() async throws {
        try await KitTestServer.run { server in
            let phone = try await SyncEngineTests.device(server, "kim@example.com", signUp: true)
            let laptop = try await SyncEngineTests.device(server, "kim@example.com")
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            try await phone.engine.sendChanges()
            try await phone.edit(together: (0..<450).map { "big\($0)" }, title: "Together", group: "big")
            try await phone.engine.sendChanges()
            let receipt = try #require(phone.contents.withLock { $0.receipts.last })
            #expect(receipt.entries.count == 450 && receipt.isComplete, "\(receipt.entries.count) entries")
            #expect(try await SyncEngineTests.serverNotes(phone.container).count == 450)

            // The laptop changes one note of the next group first: the phone's group conflicts and none of it is saved.
            await phone.edit("shared", title: "First")
            try await phone.engine.sendChanges()
            try await laptop.engine.fetchChanges()
            await laptop.edit("shared", title: "Laptop's")
            try await laptop.engine.sendChanges()
            let groupNames = ["shared", "item1", "item2"]
            await #expect(throws: Never.self) {
                try await phone.edit(together: groupNames, title: "Phone's list", group: "list")
            }
            // The first attempt fails whole; the app's merge adds the group again and it goes out in the same send.
            try await phone.engine.sendChanges()
            let attempts = phone.contents.withLock { $0.receipts.filter { $0.label == "notes" && Set($0.entries.map(\.change.recordID.recordName)) == Set(groupNames) } }
            #expect(attempts.count == 2, "\(attempts.map(\.number))")
            let failed = try #require(attempts.first)
            #expect(!failed.isComplete)
            for entry in failed.entries {
                guard case .failed(let error) = entry.outcome else { Issue.record("\(entry.change) was not refused"); continue }
                #expect(error.code == (entry.change.recordID.recordName == "shared" ? .serverRecordChanged : .batchRequestFailed))
            }
            #expect(attempts.last?.isComplete == true)
            #expect(phone.contents.withLock { $0.conflicts } == 1)
            let notes = try await SyncEngineTests.serverNotes(phone.container).filter { note in groupNames.contains { note.hasPrefix("\($0):") } }
            #expect(notes == ["item1: Phone's list []", "item2: Phone's list []", "shared: Phone's list []"])

            // Groups are one zone, and not the default zone.
            await #expect { try await phone.engine.add(pendingRecordZoneChanges: [.saveRecord(Record.ID(recordName: "x"))], atomicGroup: "bad") } throws: { error in
                (error as? StratusError)?.code == .invalidArguments
            }
        }
    }

    @Test("the timeline lists fetches, batches and scheduled retries in order, readable as text")
    func timeline() async throws {
        try await KitTestServer.run { server in
            let network = FaultInjectingTransport()
            let phone = try await SyncEngineTests.device(server, "hal@example.com", signUp: true, transport: network)
            await phone.quit()
            try phone.launch(automatically: true)
            network.update { $0 = .init(throttled: 100, retryAfterSeconds: 1) }
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            await phone.edit("t1", title: "Through a throttled network")
            // Each wait has its own minute: a loaded machine may take a while over either.
            try? await Polling.until("the engine retries after the rate limit", within: 60, every: .milliseconds(50)) {
                await phone.engine.timeline.contains { $0.description.contains("retrying in 1 s after requestRateLimited") }
            }
            network.update { $0 = .init() }
            try? await Polling.until("the change is sent", within: 60, every: .milliseconds(50)) {
                await phone.engine.state.pendingRecordZoneChanges.isEmpty
            }
            let lines = await phone.engine.timeline.map(\.description)
            // Which batch saved the note depends on when the throttling was lifted: an earlier one may have been
            // refused whole (its change then pending).
            let retry = try #require(lines.firstIndex { $0.contains("retrying in 1 s after requestRateLimited") }, "\(lines)")
            let saved = try #require(lines.firstIndex { $0.contains("sent batch ") && $0.hasSuffix(": 1 saved, 0 deleted, 0 failed, 0 pending") }, "\(lines)")
            #expect(retry < saved, "\(lines)")
            #expect(lines.contains { $0.hasSuffix("send started") } && lines.contains { $0.hasSuffix("fetch started") }, "\(lines)")
            await phone.quit()
        }
    }

    @Test("a scope of some zones and types fetches only those; widening fetches what entered it, narrowing tells the app what to drop; the scope is kept across launches")
    func partialSync() async throws {
        try await KitTestServer.run { server in
            // The user's data, written from another client: notes and tasks in two zones.
            let writer = try await server.signedUp("ivy@example.com")
            let work = Zone.ID(zoneName: "Work")
            let home = Zone.ID(zoneName: "Home")
            for zoneID in [work, home] {
                _ = try await writer.privateCloudDatabase.save(Zone(zoneID: zoneID))
                let records = ["Note", "Task"].map { type in Record(recordType: type, recordID: Record.ID(recordName: type.lowercased(), zoneID: zoneID)) }
                _ = try await writer.privateCloudDatabase.save(records)
            }
            let device = try await SyncEngineTests.device(server, "ivy@example.com")
            await device.engine.setScope(SyncScope(zoneIDs: [work], recordTypes: ["Note"]))
            try await device.engine.fetchChanges()
            #expect(device.kept == ["Work/note (Note)"])

            await device.engine.setScope(SyncScope(zoneIDs: [work]))
            try await device.engine.fetchChanges()
            #expect(device.kept == ["Work/note (Note)", "Work/task (Task)"])
            #expect(device.contents.withLock { $0.refetchedZones } == ["Work"])

            await device.engine.setScope(.everything)
            try await device.engine.fetchChanges()
            #expect(device.kept == ["Home/note (Note)", "Home/task (Task)", "Work/note (Note)", "Work/task (Task)"])

            await device.engine.setScope(SyncScope(zoneIDs: [home], recordTypes: ["Task"]))
            #expect(device.kept == ["Home/task (Task)"])
            // Changes outside the scope are not fetched.
            var note = try await writer.privateCloudDatabase.record(for: Record.ID(recordName: "note", zoneID: home))
            note["title"] = "changed"
            try await writer.privateCloudDatabase.save(note)
            _ = try await writer.privateCloudDatabase.save(Record(recordType: "Task", recordID: Record.ID(recordName: "new", zoneID: work)))
            try await device.engine.fetchChanges()
            #expect(device.kept == ["Home/task (Task)"])

            try await SyncEngineTests.relaunch(device)
            #expect(await device.engine.scope == SyncScope(zoneIDs: [home], recordTypes: ["Task"]))
            #expect(device.kept == ["Home/task (Task)"])
        }
    }

    @Test("a scope of the records a query matches: a record that stops matching leaves the device, and dropping the query fetches the rest")
    func partialSyncByQuery() async throws {
        try await KitTestServer.run { server in
            let writer = try await server.signedUp("pat@example.com")
            let lists = Zone.ID(zoneName: "Lists")
            _ = try await writer.privateCloudDatabase.save(Zone(zoneID: lists))
            let items = [("milk", "groceries"), ("eggs", "groceries"), ("report", "work")].map { name, list in
                var record = Record(recordType: "Item", recordID: Record.ID(recordName: name, zoneID: lists))
                record["list"] = list
                return record
            }
            _ = try await writer.privateCloudDatabase.save(items + [Record(recordType: "Note", recordID: Record.ID(recordName: "memo", zoneID: lists))])
            let device = try await SyncEngineTests.device(server, "pat@example.com")
            try await device.engine.fetchChanges()
            #expect(device.kept == ["Lists/eggs (Item)", "Lists/memo (Note)", "Lists/milk (Item)", "Lists/report (Item)"])
            // Narrowed to a query: records of other types leave at once, the zone comes again through the query.
            let groceries = Query(recordType: "Item", filter: .field("list") == "groceries")
            await device.engine.setScope(SyncScope(zoneIDs: [lists], query: groceries))
            #expect(!device.kept.contains("Lists/memo (Note)"))
            try await device.engine.fetchChanges()
            #expect(device.kept == ["Lists/eggs (Item)", "Lists/milk (Item)"])

            var eggs = try await writer.privateCloudDatabase.record(for: Record.ID(recordName: "eggs", zoneID: lists))
            eggs["list"] = "work"
            try await writer.privateCloudDatabase.save(eggs)
            try await device.engine.fetchChanges()
            #expect(device.kept == ["Lists/milk (Item)"])

            await device.engine.setScope(SyncScope(zoneIDs: [lists]))
            try await device.engine.fetchChanges()
            #expect(device.kept == ["Lists/eggs (Item)", "Lists/memo (Note)", "Lists/milk (Item)", "Lists/report (Item)"])
            try await SyncEngineTests.relaunch(device)
            #expect(await device.engine.scope == SyncScope(zoneIDs: [lists]))
        }
    }

    @Test("a fresh install fetches a zone's live records and none of the deletions before it")
    func freshInstallSkipsOldDeletions() async throws {
        try await KitTestServer.run { server in
            let phone = try await SyncEngineTests.device(server, "jo@example.com", signUp: true)
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            for index in 0..<40 { await phone.edit("old\(index)", title: "Soon gone") }
            try await phone.engine.sendChanges()
            for index in 0..<40 { await phone.delete("old\(index)") }
            await phone.edit("kept", title: "Kept")
            try await phone.engine.sendChanges()

            let tablet = try await SyncEngineTests.device(server, "jo@example.com")
            try await tablet.engine.fetchChanges()
            #expect(tablet.notes == ["kept: Kept []"])
            let timeline = await tablet.engine.timeline
            let deletionsFetched = timeline.reduce(0) { sum, entry in
                if case .fetchedZone(_, _, let deleted, _) = entry.kind { return sum + deleted }
                return sum
            }
            #expect(deletionsFetched == 0, "\(timeline.map(\.description))")
        }
    }
}

extension NoteDevice {
    /// The ID of one of the device's notes.
    func id(_ name: String) -> Record.ID {
        Record.ID(recordName: name, zoneID: Self.zoneID)
    }
}
