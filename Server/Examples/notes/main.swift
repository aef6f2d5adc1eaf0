import Foundation
import StratusExampleSupport
import StratusKit
import StratusLocalStore

// A notes app on the local store: notes are kept on the device at once, and sent and fetched when it syncs.
//
//   notes ann@example.com add "Groceries" "Call Bob"   kept at once, even offline
//   notes ann@example.com list
//   notes ann@example.com sync                         sends what was kept, fetches what changed
//
// Each device keeps its store and its session in ./notes-data/<device>/ (`--device` names it; `phone` by default).

await runExample {
    var arguments = Array(CommandLine.arguments.dropFirst())
    var device = "phone"
    if let index = arguments.firstIndex(of: "--device"), index + 1 < arguments.count {
        device = arguments[index + 1]
        arguments.removeSubrange(index...index + 1)
    }
    guard arguments.count >= 2 else { throw ExampleError("usage: notes EMAIL add TITLE... | list | sync [--device NAME]") }
    let (email, command, rest) = (arguments[0], arguments[1], Array(arguments.dropFirst(2)))
    let containerID = "iCloud.com.example.Notes"
    let folder = URL(fileURLWithPath: "notes-data").appendingPathComponent(email).appendingPathComponent(device)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

    // Signed in once; afterwards the kept session opens the store without the network.
    let server = try ExampleServer()
    let sessionFile = folder.appendingPathComponent("session")
    let container: Container
    if let kept = try? String(contentsOf: sessionFile, encoding: .utf8), let apiToken = try? String(contentsOf: folder.appendingPathComponent("api-token"), encoding: .utf8) {
        container = Container(identifier: containerID, serverURL: server.url, apiToken: apiToken, webAuthToken: kept)
    } else {
        container = try await server.signedIn(email, containerID: containerID)
        try await server.apiToken(for: containerID).write(to: folder.appendingPathComponent("api-token"), atomically: true, encoding: .utf8)
    }
    defer { try? container.webAuthToken?.write(to: sessionFile, atomically: true, encoding: .utf8) }
    try container.webAuthToken?.write(to: sessionFile, atomically: true, encoding: .utf8)

    let store = try await LocalStore.open(
        file: folder.appendingPathComponent("notes.sqlite"), database: container.privateCloudDatabase, automaticallySync: false
    )
    let zoneID = Zone.ID(zoneName: "Notes")
    switch command {
    case "add":
        if try await store.count(ofType: "Note") == 0 { try await store.saveZone(zoneID) }
        for title in rest {
            var note = Record(recordType: "Note", recordID: Record.ID(zoneID: zoneID))
            note["title"] = title
            try await store.save(note)
        }
        printNow("kept \(rest.count) note\(rest.count == 1 ? "" : "s")")
    case "list":
        for note in try await store.records(ofType: "Note", order: { ($0["title"] as String? ?? "") < ($1["title"] as String? ?? "") }) {
            printNow(note["title"] as String? ?? "")
        }
    case "sync":
        let waiting = await store.engine.state.pendingRecordZoneChanges.count
        printNow("syncing \(waiting) change\(waiting == 1 ? "" : "s")")
        try await store.engine.sendChanges()
        try await store.engine.fetchChanges()
        printNow("synced: \(try await store.count(ofType: "Note")) notes, \(await store.engine.state.pendingRecordZoneChanges.count) waiting")
    default:
        throw ExampleError("unknown command \(command): add, list or sync")
    }
}
