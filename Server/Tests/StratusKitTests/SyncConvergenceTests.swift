import Foundation
import StratusKit
import StratusKitTesting
import StratusLocalStore
import Testing

/// Every device converges, whatever the order of events: three devices of one user make seeded random
/// interleavings of saves, edits, deletions, zone deletions, fetches, sends and relaunches (their pending changes
/// on disk) through a fault-injecting network; after a final sync every device and the server hold the same records
/// with the same fields. Run with the local store, and with an app's own persistence (``NoteDevice``).
///
/// A failing run prints its seed; `STRATUS_CONVERGENCE_SEEDS=7,19` runs those seeds alone, and
/// `STRATUS_CONVERGENCE_RUNS=200` that many seeds from 1.
@Suite struct SyncConvergenceTests {
    static let zones = [Zone.ID(zoneName: "Notes"), Zone.ID(zoneName: "Work")]
    static let names = ["n1", "n2", "n3", "n4", "n5", "n6"]

    static let seeds: [UInt64] = {
        let environment = ProcessInfo.processInfo.environment
        if let list = environment["STRATUS_CONVERGENCE_SEEDS"] {
            return list.split(separator: ",").compactMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }
        }
        let runs = environment["STRATUS_CONVERGENCE_RUNS"].flatMap(UInt64.init) ?? 8
        return Array(1...max(runs, 1))
    }()

    @Test("three devices with their own persistence converge in any order of events", arguments: seeds)
    func ownPersistence(seed: UInt64) async throws {
        try await Self.run(seed: seed) { server, email, networkSeed in
            try await OwnPersistenceDevice(server, email, signUp: networkSeed % 8 == 0, seed: networkSeed)
        }
    }

    @Test("three devices on the local store converge in any order of events", arguments: seeds)
    func localStore(seed: UInt64) async throws {
        try await Self.run(seed: seed) { server, email, networkSeed in
            try await LocalStoreDevice(server, email, signUp: networkSeed % 8 == 0, seed: networkSeed)
        }
    }

    @Test("a device that made a zone and sent to it without fetching learns of a deletion made elsewhere", arguments: [false, true])
    func deletionBeforeTheFirstFetch(localStore: Bool) async throws {
        try await KitTestServer.run { server in
            func device(_ signUp: Bool) async throws -> any ConvergenceDevice {
                localStore
                    ? try await LocalStoreDevice(server, "ada@example.com", signUp: signUp, seed: 1)
                    : try await OwnPersistenceDevice(server, "ada@example.com", signUp: signUp, seed: 1)
            }
            let a = try await device(true)
            let b = try await device(false)
            let notes = Self.zones[0]
            try await a.createZone(notes)
            for name in ["n1", "n2", "n3"] { try await a.save(Record.ID(recordName: name, zoneID: notes), title: name, tag: "a") }
            try await a.send()
            try await b.fetch()
            #expect(try await b.contents().count == 3)
            try await b.delete(Record.ID(recordName: "n2", zoneID: notes))
            try await b.send()
            for _ in 0..<2 {
                try await a.fetch()
                #expect(try await a.contents() == ["Notes/n1: n1 [\"a\"]", "Notes/n3: n3 [\"a\"]"])
            }
            try await a.relaunch()
            try await a.fetch()
            #expect(try await a.contents() == ["Notes/n1: n1 [\"a\"]", "Notes/n3: n3 [\"a\"]"])
        }
    }

    /// One seeded run: random steps on three devices, then a final sync, then every device compared with the server.
    static func run(seed: UInt64, device make: @escaping @Sendable (KitTestServer, String, _ networkSeed: UInt64) async throws -> any ConvergenceDevice) async throws {
        try await KitTestServer.run { server in
            var random = SeededGenerator(seed: seed)
            let email = "seed\(seed)@example.com"
            var devices: [any ConvergenceDevice] = []
            for index in 0..<3 { devices.append(try await make(server, email, seed &* 8 &+ UInt64(index))) }
            for zone in zones { try await devices[0].createZone(zone) }
            var log: [String] = []
            for step in 0..<60 {
                let index = Int.random(in: 0..<devices.count, using: &random)
                let device = devices[index]
                let zone = zones.randomElement(using: &random)!
                let id = Record.ID(recordName: names.randomElement(using: &random)!, zoneID: zone)
                let roll = Int.random(in: 0..<100, using: &random)
                let action: String
                do {
                    switch roll {
                    case 0..<30:
                        action = "save \(zone.zoneName)/\(id.recordName)"
                        try await device.save(id, title: "t\(step)", tag: "d\(index)")
                    case 30..<42:
                        let kept = try await device.recordIDs()
                        guard let doomed = kept.randomElement(using: &random) else { action = "delete (none kept)"; break }
                        action = "delete \(doomed.zoneID.zoneName)/\(doomed.recordName)"
                        try await device.delete(doomed)
                    case 42..<45:
                        action = "delete zone \(zone.zoneName)"
                        try await device.deleteZone(zone)
                    case 45..<48:
                        action = "create zone \(zone.zoneName)"
                        try await device.createZone(zone)
                    case 48..<64:
                        action = "send"
                        try await device.send()
                    case 64..<80:
                        action = "fetch"
                        try await device.fetch()
                    case 80..<88:
                        action = "relaunch"
                        try await device.relaunch()
                    default:
                        let faults = Int.random(in: 0..<4, using: &random)
                        action = "network \(["clear", "offline", "dropping", "losing answers"][faults])"
                        device.network.update { network in
                            network = FaultInjectingTransport.Faults()
                            switch faults {
                            case 1: network.offline = true
                            case 2: network.dropBefore = 40
                            case 3: network.loseAnswer = 40
                            default: break
                            }
                        }
                    }
                    log.append("\(step) device \(index): \(action)")
                } catch {
                    // Failures the network causes are what the run is about: the changes stay pending.
                    log.append("\(step) device \(index): failed \(error)")
                }
            }

            // The final sync, on a quiet network: sends and fetches until nothing is pending, then one more fetch.
            for device in devices { device.network.update { $0 = FaultInjectingTransport.Faults() } }
            var quiet = false
            for round in 0..<8 where !quiet {
                for (index, device) in devices.enumerated() {
                    do {
                        try await device.send()
                        try await device.fetch()
                    } catch {
                        log.append("final sync \(round) device \(index): failed \(error)")
                    }
                }
                var pending = 0
                for device in devices { pending += await device.pendingCount() }
                quiet = pending == 0
            }
            for (index, device) in devices.enumerated() {
                do {
                    try await device.fetch()
                } catch {
                    log.append("last fetch device \(index): failed \(error)")
                }
            }

            let expected = try await serverContents(devices[0].container)
            var seen: [[String]] = []
            for device in devices { seen.append(try await device.contents()) }
            let converged = seen.allSatisfy { $0 == expected }
            #expect(quiet, "seed \(seed): changes still pending after the final sync\n\(log.joined(separator: "\n"))")
            #expect(
                converged,
                """
                seed \(seed) did not converge (rerun with STRATUS_CONVERGENCE_SEEDS=\(seed))
                server: \(expected)
                \(seen.enumerated().map { "device \($0.offset): \($0.element)" }.joined(separator: "\n"))
                \(devices.enumerated().map { "device \($0.offset) events: \($0.element.events)" }.joined(separator: "\n"))
                steps:
                \(log.joined(separator: "\n"))
                """
            )
        }
    }

    /// The server's notes in every zone, as ``NoteDevice/describe(_:)`` writes them.
    static func serverContents(_ container: Container) async throws -> [String] {
        var notes: [String] = []
        for zone in zones {
            var token: SyncToken?
            while true {
                do {
                    let page = try await container.privateCloudDatabase.recordZoneChanges(inZoneWith: zone, since: token)
                    notes += page.modificationResultsByID.values.compactMap { try? $0.get() }.map(NoteDevice.describe)
                    token = page.changeToken
                    if !page.moreComing { break }
                } catch let error as StratusError where error.code == .zoneNotFound {
                    break
                }
            }
        }
        return notes.sorted()
    }
}

/// What the convergence runs do with a device, whichever way it keeps its records.
protocol ConvergenceDevice: AnyObject, Sendable {
    var network: FaultInjectingTransport { get }
    var container: Container { get }
    /// Saves a note: a new one, or the kept one edited (its title, and a tag added).
    func save(_ id: Record.ID, title: String, tag: String) async throws
    func delete(_ id: Record.ID) async throws
    func createZone(_ zone: Zone.ID) async throws
    func deleteZone(_ zone: Zone.ID) async throws
    func send() async throws
    func fetch() async throws
    /// Quits and launches again from what the device keeps on disk.
    func relaunch() async throws
    func recordIDs() async throws -> [Record.ID]
    /// Every kept note, as ``NoteDevice/describe(_:)`` writes them, sorted.
    func contents() async throws -> [String]
    func pendingCount() async -> Int
    /// What the device noted that a run's failure report shows.
    var events: [String] { get }
}

/// A device whose app keeps its own records and the engine's state in a file (``NoteDevice``).
final class OwnPersistenceDevice: ConvergenceDevice {
    let network: FaultInjectingTransport
    let device: NoteDevice

    init(_ server: KitTestServer, _ email: String, signUp: Bool, seed: UInt64) async throws {
        network = FaultInjectingTransport(seed: seed)
        device = try await SyncEngineTests.device(server, email, signUp: signUp, transport: network)
        device.contents.withLock { $0.tracing = true }
    }

    var container: Container { device.container }

    func save(_ id: Record.ID, title: String, tag: String) async throws {
        await device.edit(id.recordName, title: title, tag: tag, zone: id.zoneID)
    }

    func delete(_ id: Record.ID) async throws { await device.delete(id.recordName, zone: id.zoneID) }
    func createZone(_ zone: Zone.ID) async throws { await device.engine.add(pendingDatabaseChanges: [.saveZone(zone)]) }
    func deleteZone(_ zone: Zone.ID) async throws { await device.deleteZone(zone) }
    func send() async throws { try await device.engine.sendChanges() }
    func fetch() async throws { try await device.engine.fetchChanges() }
    func relaunch() async throws { try await SyncEngineTests.relaunch(device) }
    func recordIDs() async throws -> [Record.ID] { device.contents.withLock { Array($0.records.keys) }.sorted { $0.description < $1.description } }
    func contents() async throws -> [String] { device.zonedNotes }
    var events: [String] { device.contents.withLock { $0.events } }

    func pendingCount() async -> Int {
        let state = await device.engine.state
        return state.pendingRecordZoneChanges.count + state.pendingDatabaseChanges.count
    }
}

/// A device on the local store: records, unsent changes and the engine's state in one SQLite file.
final class LocalStoreDevice: ConvergenceDevice {
    let network: FaultInjectingTransport
    private let device: LocalStoreTests.Device

    init(_ server: KitTestServer, _ email: String, signUp: Bool, seed: UInt64) async throws {
        network = FaultInjectingTransport(seed: seed)
        device = LocalStoreTests.Device(server, email, network: network)
        try await device.launch(signUp: signUp)
    }

    var container: Container { device.container }

    func save(_ id: Record.ID, title: String, tag: String) async throws {
        var record = try await device.store.record(for: id) ?? Record(recordType: "Note", recordID: id)
        record["title"] = title
        record["tags"] = Array(Set((record["tags"] as [String]? ?? []) + [tag])).sorted()
        try await device.store.save(record)
    }

    func delete(_ id: Record.ID) async throws { try await device.store.delete(id) }
    func createZone(_ zone: Zone.ID) async throws { try await device.store.saveZone(zone) }
    func deleteZone(_ zone: Zone.ID) async throws { try await device.store.deleteZone(zone) }
    func send() async throws { try await device.store.engine.sendChanges() }
    func fetch() async throws { try await device.store.engine.fetchChanges() }
    func relaunch() async throws { try await device.relaunch() }

    var events: [String] { [] }

    func recordIDs() async throws -> [Record.ID] {
        try await device.store.records(ofType: "Note").map(\.recordID)
    }

    func contents() async throws -> [String] {
        try await device.store.records(ofType: "Note").map(NoteDevice.describe).sorted()
    }

    func pendingCount() async -> Int {
        let state = await device.store.engine.state
        return state.pendingRecordZoneChanges.count + state.pendingDatabaseChanges.count
    }
}
