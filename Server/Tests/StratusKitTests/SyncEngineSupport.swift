import Foundation
import StratusKit
import StratusKitTesting
import StratusStoreTesting
import Synchronization

/// One device's local store of notes, synced by a ``SyncEngine`` the way a CKSyncEngine app does it: it keeps
/// each note as the app's own columns (title, tags) with the record's system fields beside them, persists them and
/// the engine's state to a file on every change, and merges conflicts (the title the user typed wins; tags are
/// united). A relaunch reads everything back from that file, signed in with the token the device kept.
final class NoteDevice: SyncEngineDelegate, Sendable {
    struct Contents: Sendable {
        var records: [Record.ID: Record] = [:]
        var state: SyncEngine.State.Serialization?
        var conflicts = 0
        var refetches = 0
        var events: [String] = []
        /// Zones being fetched again from the start in the current fetch.
        var refetching: Set<Zone.ID> = []
        /// Every batch receipt, in order.
        var receipts: [SyncEngine.BatchReceipt] = []
        /// Zones fetched again from the start, by name, in order.
        var refetchedZones: [String] = []
        /// The atomic group of notes edited together, as the app knows it.
        var groups: [Record.ID: String] = [:]
        /// Whether ``events`` also notes every fetched page.
        var tracing = false
    }

    /// What the device keeps on disk: an app's table of notes, the engine's state and the session.
    struct Saved: Codable {
        struct Note: Codable {
            var title: String?
            var tags: [String]?
            /// ``Record/encodeSystemFields()``: the name, zone, type and change tag of the note's record.
            var systemFields: Data
        }
        var notes: [Note] = []
        var state: SyncEngine.State.Serialization?
        var webAuthToken: String?
    }

    let contents = Mutex(Contents())
    private let makeContainer: @Sendable (String?) -> Container
    private let containerBox: Mutex<Container>
    private let file: URL
    private let engineBox = Mutex<SyncEngine?>(nil)
    /// The task the engine syncs in by itself, when launched so.
    private let running = Mutex<Task<Void, Never>?>(nil)
    static let zoneID = Zone.ID(zoneName: "Notes")

    /// A device whose saved data lives in `file`; `makeContainer` makes its container with a kept web auth token.
    init(file: URL, makeContainer: @escaping @Sendable (String?) -> Container) {
        self.file = file
        self.makeContainer = makeContainer
        containerBox = Mutex(makeContainer(nil))
    }

    /// The container of the current launch.
    var container: Container { containerBox.withLock { $0 } }

    var engine: SyncEngine { engineBox.withLock { $0! } }

    /// Starts as a relaunched app does: reads its notes, the engine's state and the session from its file (if any),
    /// and starts an engine from that state.
    /// With `automatically`, the engine syncs by itself: as `CKSyncEngine` does from the moment it exists
    /// (``SyncEngine/Configuration/automaticallySync``), or in a task of the app's (``SyncEngine/run()``).
    func launch(automatically: Bool = false, inOwnTask: Bool = true) throws {
        if let data = try? Data(contentsOf: file) {
            let saved = try JSONDecoder().decode(Saved.self, from: data)
            var records: [Record.ID: Record] = [:]
            for note in saved.notes {
                var record = try Record(systemFields: note.systemFields)
                record["title"] = note.title
                record["tags"] = note.tags
                records[record.recordID] = record
            }
            contents.withLock {
                $0.records = records
                $0.state = saved.state
            }
            containerBox.withLock { $0 = makeContainer(saved.webAuthToken) }
        }
        let state = contents.withLock { $0.state }
        let engine = try SyncEngine(SyncEngine.Configuration(
            database: container.privateCloudDatabase, stateSerialization: state, delegate: self,
            automaticallySync: automatically && !inOwnTask
        ))
        engineBox.withLock { $0 = engine }
        if automatically && inOwnTask { running.withLock { $0 = Task { await engine.run() } } }
    }

    /// Writes the notes, the engine's state and the session to the device's file, replacing it whole.
    func persist() {
        let saved = contents.withLock { contents in
            Saved(
                notes: contents.records.values.sorted { $0.recordID.recordName < $1.recordID.recordName }.map { record in
                    Saved.Note(title: record["title"], tags: record["tags"], systemFields: record.encodeSystemFields())
                },
                state: contents.state
            )
        }
        var withSession = saved
        withSession.webAuthToken = container.webAuthToken
        // Encoding strings and bytes cannot fail; a write that fails shows as a test failure at the next launch.
        try? JSONEncoder().encode(withSession).write(to: file, options: .atomic)
    }

    /// Changes what the device keeps on disk while it is not running (as damage between launches would).
    func changeSaved(_ change: (inout Saved) -> Void) throws {
        var saved = try JSONDecoder().decode(Saved.self, from: Data(contentsOf: file))
        change(&saved)
        try JSONEncoder().encode(saved).write(to: file, options: .atomic)
    }

    /// Quits: the engine stops and what the device kept in memory is gone; its file stays.
    func quit() async {
        await engineBox.withLock { $0 }?.stop()
        // run() returns once stop() ended what it was doing.
        await running.withLock { $0 }?.value
        running.withLock { $0 = nil }
        engineBox.withLock { $0 = nil }
        persist()
        contents.withLock {
            $0.records = [:]
            $0.state = nil
        }
    }

    /// The user edits a note: the title, and one tag added.
    func edit(_ name: String, title: String, tag: String? = nil, zone: Zone.ID = NoteDevice.zoneID) async {
        let id = Record.ID(recordName: name, zoneID: zone)
        contents.withLock { contents in
            var record = contents.records[id] ?? Record(recordType: "Note", recordID: id)
            record["title"] = title
            if let tag { record["tags"] = Array(Set((record["tags"] as [String]? ?? []) + [tag])).sorted() }
            contents.records[id] = record
        }
        persist()
        await engine.add(pendingRecordZoneChanges: [.saveRecord(id)])
    }

    /// The user edits several notes as one change (a list and its items): saved all together or not at all.
    func edit(together names: [String], title: String, group: String) async throws {
        let ids = names.map { Record.ID(recordName: $0, zoneID: Self.zoneID) }
        contents.withLock { contents in
            for id in ids {
                var record = contents.records[id] ?? Record(recordType: "Note", recordID: id)
                record["title"] = title
                contents.records[id] = record
                contents.groups[id] = group
            }
        }
        persist()
        try await engine.add(pendingRecordZoneChanges: ids.map { .saveRecord($0) }, atomicGroup: group)
    }

    func delete(_ name: String, zone: Zone.ID = NoteDevice.zoneID) async {
        let id = Record.ID(recordName: name, zoneID: zone)
        _ = contents.withLock { $0.records.removeValue(forKey: id) }
        persist()
        await engine.add(pendingRecordZoneChanges: [.deleteRecord(id)])
    }

    /// The user deletes a whole zone: its notes go at once here, with the changes to them not sent yet, and the
    /// zone goes on the server at the next send.
    func deleteZone(_ zone: Zone.ID) async {
        contents.withLock { $0.records = $0.records.filter { $0.key.zoneID != zone } }
        persist()
        let dropped = await engine.state.pendingRecordZoneChanges.filter { $0.recordID.zoneID == zone }
        await engine.remove(pendingRecordZoneChanges: dropped)
        await engine.add(pendingDatabaseChanges: [.deleteZone(zone)])
    }

    /// Every record the device keeps as `zone/name (type)`, sorted.
    var kept: [String] {
        contents.withLock { contents in
            contents.records.values.map { "\($0.recordID.zoneID.zoneName)/\($0.recordID.recordName) (\($0.recordType))" }.sorted()
        }
    }

    /// Every note as `zone/name: title [tags]`, sorted.
    var zonedNotes: [String] {
        contents.withLock { contents in
            contents.records.values.map(NoteDevice.describe).sorted()
        }
    }

    /// A note as `zone/name: title [tags]`.
    static func describe(_ record: Record) -> String {
        "\(record.recordID.zoneID.zoneName)/\(record.recordID.recordName): \(record["title"] as String? ?? "") \((record["tags"] as [String]?)?.sorted() ?? [])"
    }

    /// Every note as `name: title [tags]`, sorted.
    var notes: [String] {
        contents.withLock { contents in
            contents.records.values.map { record in
                "\(record.recordID.recordName): \(record["title"] as String? ?? "") \((record["tags"] as [String]?)?.sorted() ?? [])"
            }.sorted()
        }
    }

    func handleEvent(_ event: SyncEngine.Event, syncEngine: SyncEngine) async {
        var readd: [PendingRecordZoneChange] = []
        var zones: [PendingDatabaseChange] = []
        contents.withLock { contents in
            if contents.tracing { contents.events.append(Self.trace(event)) }
            switch event {
            case .stateUpdate(let state):
                contents.state = state
            case .didFetchChanges:
                contents.refetching = []
            case .fetchedDatabaseChanges(_, let deletions):
                contents.records = contents.records.filter { !deletions.contains($0.key.zoneID) }
            case .fetchedRecordZoneChanges(let zoneID, let modifications, let deletions, let refetched):
                // A zone fetched again from the start: what the device had of it is replaced, on its first page.
                if refetched, !contents.refetching.contains(zoneID) {
                    contents.refetching.insert(zoneID)
                    contents.refetches += 1
                    contents.refetchedZones.append(zoneID.zoneName)
                    contents.records = contents.records.filter { $0.key.zoneID != zoneID }
                }
                for record in modifications { contents.records[record.recordID] = record }
                for deletion in deletions { contents.records[deletion.recordID] = nil }
            case .sentRecordZoneChanges(let saved, let failed, _, _):
                for record in saved { contents.records[record.recordID] = record }
                for (record, error) in failed {
                    switch error.code {
                    case .serverRecordChanged:
                        guard var merged = error.serverRecord else { continue }
                        contents.conflicts += 1
                        merged["title"] = record["title"] as String?
                        let tags = Set((record["tags"] as [String]? ?? []) + (merged["tags"] as [String]? ?? []))
                        merged["tags"] = tags.isEmpty ? nil : tags.sorted()
                        contents.records[record.recordID] = merged
                        readd.append(.saveRecord(record.recordID))
                    case .batchRequestFailed:
                        // Refused with its group: sent again with it.
                        readd.append(.saveRecord(record.recordID))
                    case .zoneNotFound:
                        zones.append(.saveZone(record.recordID.zoneID))
                        readd.append(.saveRecord(record.recordID))
                    case .unknownItem:
                        // Edited here, deleted on the server: deleted here too.
                        contents.records[record.recordID] = nil
                    default:
                        contents.events.append("failed \(record.recordID.recordName): \(error.code)")
                    }
                }
            case .sentBatch(let receipt):
                contents.receipts.append(receipt)
            case .syncScopeNarrowed(let zones, let kept):
                contents.records = contents.records.filter { id, record in
                    !zones.contains(id.zoneID) && (kept?.contains(record.recordType) ?? true)
                }
            default:
                break
            }
        }
        persist()
        if !zones.isEmpty { await syncEngine.add(pendingDatabaseChanges: zones) }
        let groups = contents.withLock { $0.groups }
        let grouped = Dictionary(grouping: readd.filter { groups[$0.recordID] != nil }) { groups[$0.recordID]! }
        for (group, changes) in grouped.sorted(by: { $0.key < $1.key }) {
            do {
                try await syncEngine.add(pendingRecordZoneChanges: changes, atomicGroup: group)
            } catch {
                contents.withLock { $0.events.append("group \(group) refused: \(error)") }
            }
        }
        let ungrouped = readd.filter { groups[$0.recordID] == nil }
        if !ungrouped.isEmpty { await syncEngine.add(pendingRecordZoneChanges: ungrouped) }
    }

    /// An event as a line of a failing test's report.
    static func trace(_ event: SyncEngine.Event) -> String {
        switch event {
        case .fetchedRecordZoneChanges(let zoneID, let modifications, let deletions, let refetched):
            "fetched \(zoneID.zoneName): \(modifications.map(describe)) deleted \(deletions.map(\.recordID.recordName))\(refetched ? " refetched" : "")"
        case .fetchedDatabaseChanges(let modified, let deleted):
            "zones changed \(modified.map(\.zoneName)) deleted \(deleted.map(\.zoneName))"
        case .sentDatabaseChanges(let saved, let failedSaves, let deleted, let failedDeletes):
            "sent zones: saved \(saved.map(\.zoneID.zoneName)) deleted \(deleted.map(\.zoneName)) failed \(failedSaves.map(\.error.code)) \(failedDeletes.values.map(\.code))"
        case .sentRecordZoneChanges(let saved, let failed, let deleted, let failedDeletes):
            "sent: saved \(saved.map(describe)) deleted \(deleted.map(\.description)) failed \(failed.map { "\($0.record.recordID.recordName) \($0.error.code)" }) \(failedDeletes.map { "\($0.key.recordName) \($0.value.code)" })"
        default:
            "\(event)".prefix(60).description
        }
    }

    func nextRecordZoneChangeBatch(_ context: SyncEngine.SendChangesContext, syncEngine: SyncEngine) async -> SyncEngine.RecordZoneChangeBatch? {
        await SyncEngine.RecordZoneChangeBatch(pendingChanges: context.pendingChanges, label: "notes") { id in
            self.contents.withLock { $0.records[id] }
        }
    }
}
