import Foundation
import StratusKit
import StratusKitTesting
import StratusLocalStore
import StratusStoreTesting
import Testing

/// The local store against a live server: devices of one user, each with its store in a SQLite file, that edit
/// offline, merge, delete, relaunch from their files, and tell the UI what changed.
@Suite struct LocalStoreTests {
    static let notes = Zone.ID(zoneName: "Notes")

    /// One device: its network, its session and its store file.
    final class Device: Sendable {
        let network: FaultInjectingTransport
        let file: URL
        let server: KitTestServer
        let email: String
        private let current = LockedBox<(container: Container, store: LocalStore)?>(nil)

        init(_ server: KitTestServer, _ email: String, network: FaultInjectingTransport = FaultInjectingTransport()) {
            self.server = server
            self.email = email
            self.network = network
            file = server.deviceFile().deletingPathExtension().appendingPathExtension("sqlite")
        }

        var store: LocalStore { current.value!.store }
        var container: Container { current.value!.container }

        /// Signs in (or up) and opens the store, as a first launch.
        func launch(signUp: Bool = false, token: String? = nil) async throws {
            let container = server.container(webAuthToken: token, transport: network)
            if token == nil {
                if signUp {
                    _ = try await container.signUp(email: email, password: "correct horse battery")
                } else {
                    _ = try await container.signIn(email: email, password: "correct horse battery")
                }
            }
            let store = try await LocalStore.open(file: file, database: container.privateCloudDatabase, automaticallySync: false)
            current.value = (container, store)
        }

        /// Quits and launches again from the file, signed in with the token kept.
        func relaunch() async throws {
            let token = container.webAuthToken
            await store.engine.stop()
            current.value = nil
            try await launch(token: token)
        }

        func note(_ name: String) -> Record.ID { Record.ID(recordName: name, zoneID: LocalStoreTests.notes) }

        /// Every note as `name: title / body`, sorted.
        func notes() async throws -> [String] {
            try await store.records(ofType: "Note").map { "\($0.recordID.recordName): \($0["title"] as String? ?? "") / \($0["body"] as String? ?? "")" }.sorted()
        }

        func edit(_ name: String, _ change: (inout Record) -> Void) async throws {
            var record = try await store.record(for: note(name)) ?? Record(recordType: "Note", recordID: note(name))
            change(&record)
            try await store.save(record)
        }

        func sync() async throws {
            try await store.engine.sendChanges()
            try await store.engine.fetchChanges()
        }
    }

    /// A phone that signs `email`'s user up and a laptop that signs in, each with its store launched.
    static func twoDevices(_ server: KitTestServer, _ email: String) async throws -> (phone: Device, laptop: Device) {
        let phone = Device(server, email)
        let laptop = Device(server, email)
        try await phone.launch(signUp: true)
        try await laptop.launch()
        return (phone, laptop)
    }

    @Test("two devices converge; offline edits of different fields of one note are merged field by field; a deletion reaches the other device")
    func twoDevices() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server, "lee@example.com")
            try await phone.store.saveZone(Self.notes)
            try await phone.edit("n1") { $0["title"] = "Groceries"; $0["body"] = "milk" }
            try await phone.edit("n2") { $0["title"] = "Trip"; $0["body"] = "" }
            try await phone.sync()
            try await laptop.sync()
            #expect(try await laptop.notes() == ["n1: Groceries / milk", "n2: Trip / "])

            phone.network.update { $0.offline = true }
            laptop.network.update { $0.offline = true }
            try await phone.edit("n1") { $0["title"] = "Groceries for Sunday" }
            try await laptop.edit("n1") { $0["body"] = "milk, eggs" }
            try await laptop.store.delete(laptop.note("n2"))
            phone.network.update { $0.offline = false }
            laptop.network.update { $0.offline = false }
            try await laptop.sync()
            try await phone.sync()            // n1 conflicts, is merged and sent again in the same send
            try await laptop.sync()
            let expected = ["n1: Groceries for Sunday / milk, eggs"]
            #expect(try await phone.notes() == expected)
            #expect(try await laptop.notes() == expected)
            #expect(await phone.store.engine.state.pendingRecordZoneChanges.isEmpty)
        }
    }

    @Test("saves and deletions in a batch are kept in one transaction, wait on disk across a relaunch, and reach the other device")
    func batches() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server, "uma@example.com")
            try await phone.store.saveZone(Self.notes)
            phone.network.update { $0.offline = true }
            let records = (1...300).map { index in
                var record = Record(recordType: "Note", recordID: phone.note("b\(index)"))
                record["title"] = "Batch \(index)"
                return record
            }
            try await phone.store.save(records)
            try await phone.store.delete((1...100).map { phone.note("b\($0)") })
            #expect(try await phone.store.count(ofType: "Note") == 200)
            // The engine's saved state leaves the record changes to the store's own table: a relaunch hands them back.
            try await phone.relaunch()
            #expect(await phone.store.engine.state.pendingRecordZoneChanges.count == 300)
            #expect(await phone.store.engine.state.pendingDatabaseChanges == [.saveZone(Self.notes)])
            phone.network.update { $0.offline = false }
            try await phone.sync()
            #expect(await phone.store.engine.state.pendingRecordZoneChanges.isEmpty)
            try await phone.relaunch()
            #expect(await phone.store.engine.state.pendingRecordZoneChanges.isEmpty, "sent changes came back after a relaunch")
            try await laptop.sync()
            #expect(try await laptop.store.count(ofType: "Note") == 200)
            #expect(try await laptop.store.record(for: laptop.note("b101"))?["title"] as String? == "Batch 101")
        }
    }

    @Test("a record deleted here and changed on the server before the deletion was sent stays deleted, and the deletion wins")
    func deletionNotSentYet() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server, "oda@example.com")
            try await phone.store.saveZone(Self.notes)
            try await phone.edit("n1") { $0["title"] = "First" }
            try await phone.sync()
            try await laptop.sync()
            laptop.network.update { $0.offline = true }
            try await laptop.store.delete(laptop.note("n1"))
            try await phone.edit("n1") { $0["title"] = "Changed on the phone" }
            try await phone.sync()
            laptop.network.update { $0.offline = false }
            try await laptop.store.engine.fetchChanges()
            #expect(try await laptop.notes().isEmpty, "a fetched change brought back a record deleted here")
            try await laptop.sync()
            try await phone.sync()
            #expect(try await phone.notes().isEmpty)
            #expect(try await laptop.notes().isEmpty)
        }
    }

    @Test("records and edits not sent yet survive a relaunch from the file, and are sent after it")
    func relaunchFromTheFile() async throws {
        try await KitTestServer.run { server in
            let phone = Device(server, "max@example.com")
            try await phone.launch(signUp: true)
            try await phone.store.saveZone(Self.notes)
            try await phone.edit("kept") { $0["title"] = "Kept" }
            try await phone.sync()
            phone.network.update { $0.offline = true }
            try await phone.edit("offline") { $0["title"] = "Written offline" }
            try await phone.edit("kept") { $0["body"] = "edited offline" }
            try await phone.relaunch()
            #expect(try await phone.notes() == ["kept: Kept / edited offline", "offline: Written offline / "])
            #expect(Set(await phone.store.engine.state.pendingRecordZoneChanges.map(\.recordID.recordName)) == ["offline", "kept"])
            phone.network.update { $0.offline = false }
            try await phone.sync()

            let tablet = Device(server, "max@example.com")
            try await tablet.launch()
            try await tablet.sync()
            #expect(try await tablet.notes() == ["kept: Kept / edited offline", "offline: Written offline / "])
        }
    }

    @Test("a file of the first format (unsent changes in their own table) opens in the current one, its waiting saves and deletions kept and sent")
    func fileOfTheFirstFormat() async throws {
        try await KitTestServer.run { server in
            let phone = Device(server, "ada@example.com")
            try await phone.launch(signUp: true)
            try await phone.store.saveZone(Self.notes)
            try await phone.edit("kept") { $0["title"] = "Kept" }
            try await phone.edit("gone") { $0["title"] = "Gone" }
            try await phone.sync()
            phone.network.update { $0.offline = true }
            try await phone.edit("kept") { $0["body"] = "edited offline" }
            try await phone.edit("new") { $0["title"] = "New" }
            try await phone.store.delete(phone.note("gone"))
            await phone.store.engine.stop()
            try LocalStoreFirstFormat.rewrite(phone.file)

            try await phone.relaunch()
            #expect(try await phone.notes() == ["kept: Kept / edited offline", "new: New / "])
            #expect(try await phone.store.record(for: phone.note("gone")) == nil)
            let pending = await phone.store.engine.state.pendingRecordZoneChanges
            #expect(Set(pending) == [.saveRecord(phone.note("kept")), .saveRecord(phone.note("new")), .deleteRecord(phone.note("gone"))], "\(pending)")
            phone.network.update { $0.offline = false }
            try await phone.sync()
            #expect(await phone.store.engine.state.pendingRecordZoneChanges.isEmpty)

            let tablet = Device(server, "ada@example.com")
            try await tablet.launch()
            try await tablet.sync()
            #expect(try await tablet.notes() == ["kept: Kept / edited offline", "new: New / "])
        }
    }

    @Test("the UI hears of local edits and of fetched changes; queries filter, sort and count the kept records")
    func changesAndQueries() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await Self.twoDevices(server, "ned@example.com")
            let heard = LockedBox<[String]>([])
            let changes = await laptop.store.changes()
            let listener = Task {
                for await change in changes {
                    heard.value += change.saved.map { "\(change.origin) saved \($0.recordName)" } + change.deleted.map { "\(change.origin) deleted \($0.recordName)" }
                }
            }
            try await phone.store.saveZone(Self.notes)
            for index in 1...5 { try await phone.edit("n\(index)") { $0["title"] = "Note \(index)"; $0["rank"] = 10 - index } }
            try await phone.sync()
            try await laptop.sync()
            try await laptop.edit("n6") { $0["title"] = "Laptop's"; $0["rank"] = 0 }
            try? await Polling.until("six changes are heard", within: 20) { heard.value.count >= 6 }
            listener.cancel()
            #expect(heard.value == (1...5).map { "server saved n\($0)" } + ["local saved n6"], "\(heard.value)")

            let top = try await laptop.store.records(ofType: "Note", limit: 3, order: { ($0["rank"] as Int? ?? 0) < ($1["rank"] as Int? ?? 0) }) {
                ($0["rank"] as Int? ?? 0) < 8
            }
            #expect(top.map(\.recordID.recordName) == ["n6", "n5", "n4"])
            #expect(try await laptop.store.count(ofType: "Note") == 6)
            #expect(try await laptop.store.count(ofType: "Note", inZone: Zone.ID(zoneName: "Elsewhere")) == 0)
        }
    }
}

/// A value shared between tasks of a test.
final class LockedBox<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    /// Changes the value in place, under the lock.
    func update(_ change: (inout Value) -> Void) {
        lock.withLock { change(&stored) }
    }
}
