import Foundation
import StratusKit
import StratusKitTesting
import Testing

/// An app that starts without asking anything: an anonymous account syncs notes, the user later gives an address
/// and password, and the sync engine goes on as the same user on this device and another.
@Suite struct AnonymousAccountTests {
    @Test("the sync engine goes on across an anonymous account's upgrade; a second device signs in to the same notes")
    func upgradeMidSync() async throws {
        try await KitTestServer.run { server in
            let phone = NoteDevice(file: server.deviceFile()) { token in server.container(webAuthToken: token) }
            let user = try await phone.container.signUpAnonymously(deviceName: "Phone")
            #expect(try await phone.container.account().isAnonymous)
            phone.persist()
            try phone.launch()
            await phone.engine.add(pendingDatabaseChanges: [.saveZone(NoteDevice.zoneID)])
            await phone.edit("n1", title: "Before the upgrade")
            try await phone.engine.sendChanges()

            try await phone.container.attachPassword(email: "ann@example.com", password: SyncEngineTests.password)
            let account = try await phone.container.account()
            #expect(!account.isAnonymous && account.emailAddress == "ann@example.com" && account.userRecordID == user)
            await phone.edit("n2", title: "After the upgrade")
            try await phone.engine.sendChanges()
            #expect(await phone.engine.state.pendingRecordZoneChanges.isEmpty)

            let laptop = try await SyncEngineTests.device(server, "ann@example.com")
            try await laptop.engine.fetchChanges()
            #expect(laptop.notes == ["n1: Before the upgrade []", "n2: After the upgrade []"])
            #expect(try await laptop.container.userRecordID() == user)
        }
    }
}
