import Foundation
import StratusKit
import StratusKitTesting
import Synchronization
import StratusStoreTesting
import Testing

/// The sync engine against a live server: devices of one user that edit offline and converge, conflicts merged
/// by the app, a transport that drops, delays and fails requests, and a relaunch from the persisted state
/// between every step.
@Suite struct SyncEngineTests {
    static let password = "correct horse battery"

    /// A device of `email`'s user, signed in over `transport`.
    static func device(_ server: KitTestServer, _ email: String, signUp: Bool = false, transport: FaultInjectingTransport = FaultInjectingTransport()) async throws -> NoteDevice {
        let device = NoteDevice(file: server.deviceFile()) { token in server.container(webAuthToken: token, transport: transport) }
        if signUp {
            _ = try await device.container.signUp(email: email, password: password)
        } else {
            _ = try await device.container.signIn(email: email, password: password)
        }
        device.persist()
        try device.launch()
        return device
    }

    /// Quits and relaunches from what the device persisted, as an app killed between two steps.
    static func relaunch(_ devices: NoteDevice...) async throws {
        for device in devices {
            await device.quit()
            try device.launch()
        }
    }

    /// Every note of the zone as the server has it, in the devices' `name: title [tags]` form.
    static func serverNotes(_ container: Container) async throws -> [String] {
        var notes: [String] = []
        var token: SyncToken?
        while true {
            let page = try await container.privateCloudDatabase.recordZoneChanges(inZoneWith: NoteDevice.zoneID, since: token)
            for record in page.modificationResultsByID.values.compactMap({ try? $0.get() }) {
                notes.append("\(record.recordID.recordName): \(record["title"] as String? ?? "") \((record["tags"] as [String]?)?.sorted() ?? [])")
            }
            token = page.changeToken
            if !page.moreComing { break }
        }
        return notes.sorted()
    }

    @Test("two devices of one user edit offline, relaunch between steps, and converge; the conflict is merged by the app")
    func offlineDevicesConverge() async throws {
        try await KitTestServer.run { server in
            let phoneNetwork = FaultInjectingTransport()
            let laptopNetwork = FaultInjectingTransport()
            let phone = try await Self.device(server, "ann@example.com", signUp: true, transport: phoneNetwork)
            let laptop = try await Self.device(server, "ann@example.com", transport: laptopNetwork)

            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            await phone.edit("n1", title: "Groceries", tag: "home")
            await phone.edit("n2", title: "Trip")
            try await phone.engine.sendChanges()
            #expect(await phone.engine.state.pendingRecordZoneChanges.isEmpty)
            try await Self.relaunch(phone, laptop)
            try await laptop.engine.fetchChanges()
            #expect(laptop.notes == ["n1: Groceries [\"home\"]", "n2: Trip []"])

            // Both offline: each edits n1, the phone deletes n2 and adds n3, the laptop adds n4.
            phoneNetwork.update { $0.offline = true }
            laptopNetwork.update { $0.offline = true }
            await phone.edit("n1", title: "Groceries and milk", tag: "urgent")
            await phone.delete("n2")
            await phone.edit("n3", title: "Phone note")
            await laptop.edit("n1", title: "Groceries list", tag: "shared")
            await laptop.edit("n4", title: "Laptop note")
            await #expect { try await phone.engine.sendChanges() } throws: { error in (error as? StratusError)?.code == .networkUnavailable }
            #expect(await phone.engine.state.pendingRecordZoneChanges.count == 3)
            try await Self.relaunch(phone, laptop)
            #expect(await phone.engine.state.pendingRecordZoneChanges.map(\.recordID.recordName) == ["n1", "n2", "n3"])

            // Online again: the phone sends first; the laptop's n1 conflicts, is merged and sent in a second pass.
            phoneNetwork.update { $0.offline = false }
            laptopNetwork.update { $0.offline = false }
            try await phone.engine.sendChanges()
            try await Self.relaunch(phone, laptop)
            try await laptop.engine.sendChanges()
            #expect(laptop.contents.withLock { $0.conflicts } == 1)
            #expect(phone.contents.withLock { $0.conflicts } == 0)
            #expect(await laptop.engine.state.pendingRecordZoneChanges.isEmpty)
            try await Self.relaunch(phone, laptop)
            try await phone.engine.fetchChanges()
            try await laptop.engine.fetchChanges()

            let expected = ["n1: Groceries list [\"home\", \"shared\", \"urgent\"]", "n3: Phone note []", "n4: Laptop note []"]
            #expect(phone.notes == expected)
            #expect(laptop.notes == expected)
            #expect(try await Self.serverNotes(phone.container) == expected)
        }
    }

    @Test("a device relaunched from disk with edits pending sends them as edits of the server's records: no conflict")
    func pendingEditsSurviveARelaunch() async throws {
        try await KitTestServer.run { server in
            let network = FaultInjectingTransport()
            let phone = try await Self.device(server, "cy@example.com", signUp: true, transport: network)
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            for name in ["n1", "n2", "n3"] { await phone.edit(name, title: "First \(name)") }
            try await phone.engine.sendChanges()

            network.update { $0.offline = true }
            await phone.edit("n1", title: "Edited offline", tag: "later")
            await phone.edit("n2", title: "Edited offline too")
            await phone.delete("n3")
            await phone.quit()
            #expect(phone.notes.isEmpty, "quitting kept notes in memory")
            try phone.launch()
            #expect(phone.notes == ["n1: Edited offline [\"later\"]", "n2: Edited offline too []"])
            #expect(await phone.engine.state.pendingRecordZoneChanges.map(\.recordID.recordName) == ["n1", "n2", "n3"])

            network.update { $0.offline = false }
            try await phone.engine.sendChanges()
            #expect(phone.contents.withLock { $0.conflicts } == 0)
            #expect(phone.contents.withLock { $0.events }.isEmpty)
            #expect(await phone.engine.state.pendingRecordZoneChanges.isEmpty)
            #expect(try await Self.serverNotes(phone.container) == ["n1: Edited offline [\"later\"]", "n2: Edited offline too []"])
        }
    }

    @Test("through a transport that drops, delays, fails and loses answers mid-batch, 250 notes and their edits arrive exactly")
    func faultyNetwork() async throws {
        try await KitTestServer.run { server in
            let network = FaultInjectingTransport()
            let phone = try await Self.device(server, "ann@example.com", signUp: true, transport: network)
            network.update { $0 = FaultInjectingTransport.Faults(dropBefore: 15, loseAnswer: 15, unavailable: 10, maximumDelay: .milliseconds(5)) }

            /// Sends until nothing is pending, relaunching after every attempt, as a flaky app would.
            func sendUntilDone() async throws {
                for _ in 0..<60 {
                    do { try await phone.engine.sendChanges() } catch let error as StratusError {
                        #expect([.networkFailure, .serviceUnavailable].contains(error.code), "\(error)")
                    }
                    try await Self.relaunch(phone)
                    let state = await phone.engine.state
                    if state.pendingRecordZoneChanges.isEmpty && state.pendingDatabaseChanges.isEmpty { return }
                }
                Issue.record("changes still pending after 60 sends")
            }

            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            for index in 0..<250 { await phone.edit("n\(index)", title: "Note \(index)", tag: index.isMultiple(of: 2) ? "even" : nil) }
            try await sendUntilDone()
            // Edits and deletes in rounds, each sent through the faults.
            for round in 0..<5 {
                for index in stride(from: round * 50, to: round * 50 + 50, by: 5) { await phone.edit("n\(index)", title: "Edited \(index)", tag: "edited") }
                for index in stride(from: 1 + round * 50, to: round * 50 + 50, by: 7) { await phone.delete("n\(index)") }
                try await sendUntilDone()
            }
            let injected = network.injected
            #expect([.dropped, .answerLost, .unavailable].allSatisfy { injected[$0, default: 0] > 0 }, "every kind of fault was injected: \(injected)")

            // A clean device fetches everything; it, the phone and the server agree record by record.
            network.update { $0 = FaultInjectingTransport.Faults() }
            let laptop = try await Self.device(server, "ann@example.com")
            try await laptop.engine.fetchChanges()
            let expected = phone.notes
            let deleted: Int = (0..<5).map { (round: Int) -> Int in Array(stride(from: 1 + round * 50, to: round * 50 + 50, by: 7)).count }.reduce(0, +)
            #expect(expected.count == 250 - deleted)
            #expect(expected.contains("n5: Edited 5 [\"edited\"]"))
            #expect(laptop.notes == expected)
            #expect(try await Self.serverNotes(laptop.container) == expected)
        }
    }

    @Test("a zone deleted and made again elsewhere is fetched again whole; damaged database and zone tokens lead to a full refetch, not a gap")
    func refetches() async throws {
        try await KitTestServer.run { server in
            let phone = try await Self.device(server, "ann@example.com", signUp: true)
            let laptop = try await Self.device(server, "ann@example.com")
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            await phone.edit("old", title: "Old")
            try await phone.engine.sendChanges()
            try await laptop.engine.fetchChanges()
            #expect(laptop.notes == ["old: Old []"])

            // The phone deletes the zone and makes it again with another note.
            await phone.engine.add(pendingDatabaseChanges: [.deleteZone(NoteDevice.zoneID)])
            try await phone.engine.sendChanges()
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            await phone.edit("new", title: "New")
            try await phone.engine.sendChanges()
            try await laptop.engine.fetchChanges()
            #expect(laptop.notes == ["new: New []"])

            // A damaged state token: the engine fetches again from the start rather than skipping anything.
            var damaged = try #require(laptop.contents.withLock { $0.state })
            let text = String(decoding: damaged.data, as: UTF8.self)
            let damagedText = text.replacingOccurrences(of: #""token":""#, with: #""token":"damaged"#)
                .replacingOccurrences(of: #""databaseToken":""#, with: #""databaseToken":"damaged"#)
            #expect(damagedText.contains(#""databaseToken":"damaged"#) && damagedText.contains(#""token":"damaged"#))
            damaged = SyncEngine.State.Serialization(data: Data(damagedText.utf8))
            await laptop.quit()
            try laptop.changeSaved { $0.state = damaged }
            try laptop.launch()
            await phone.edit("newer", title: "Newer")
            try await phone.engine.sendChanges()
            try await laptop.engine.fetchChanges()
            #expect(laptop.contents.withLock { $0.refetches } >= 1)
            #expect(laptop.notes == ["new: New []", "newer: Newer []"])
        }
    }

    @Test(
        "with automatic sync (automaticallySync, CloudKit's default, or run() in the app's task), a change on one device reaches the other through the event stream, with no call to send or fetch",
        arguments: [false, true]
    )
    func automaticSync(inOwnTask: Bool) async throws {
        try await KitTestServer.run { server in
            let phone = try await Self.device(server, "ann@example.com", signUp: true)
            let laptop = try await Self.device(server, "ann@example.com")
            await phone.quit()
            try phone.launch(automatically: true, inOwnTask: inOwnTask)
            await laptop.quit()
            try laptop.launch(automatically: true, inOwnTask: inOwnTask)
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            await phone.edit("live", title: "Sent by itself")
            // A loaded machine can take long to carry the change over the stream; the loop ends as soon as it arrives.
            // The laptop may have the note before the phone has handled the server's answer to its send.
            try? await Polling.until("the note is sent and reaches the laptop", within: 90, every: .milliseconds(50)) {
                await phone.engine.state.pendingRecordZoneChanges.isEmpty && laptop.notes == ["live: Sent by itself []"]
            }
            #expect(laptop.notes == ["live: Sent by itself []"])
            #expect(await phone.engine.state.pendingRecordZoneChanges.isEmpty)
            await phone.quit()
            await laptop.quit()
        }
    }

    @Test("an engine does nothing until run(); run() syncs until its task is cancelled, and returns at once once stopped")
    func runIsTheEnginesTask() async throws {
        try await KitTestServer.run { server in
            let phone = try await Self.device(server, "bea@example.com", signUp: true)
            let engine = phone.engine
            await engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            await phone.edit("waiting", title: "Sent once the engine runs")

            let running = Task { await engine.run() }
            try? await Polling.until("run() sends the pending change", within: 90, every: .milliseconds(50)) {
                await engine.state.pendingRecordZoneChanges.isEmpty
            }
            #expect(await engine.state.pendingRecordZoneChanges.isEmpty, "run() did not send the pending change")
            #expect(try await Self.serverNotes(phone.container) == ["waiting: Sent once the engine runs []"])

            running.cancel()
            #expect(await Self.finishes(running, within: .seconds(60)), "run() went on after its task was cancelled")
            await engine.stop()
            #expect(await Self.finishes(Task { await engine.run() }, within: .seconds(60)), "a stopped engine's run() did not return")
        }
    }

    /// Whether `task` ends within `limit` (a task that never ends is left waiting, and the test fails).
    static func finishes(_ task: Task<Void, Never>, within limit: Duration) async -> Bool {
        let finished = Mutex(false)
        Task {
            await task.value
            finished.withLock { $0 = true }
        }
        let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
        try? await Polling.until("the task ends", within: seconds) { finished.withLock { $0 } }
        return finished.withLock { $0 }
    }
}
