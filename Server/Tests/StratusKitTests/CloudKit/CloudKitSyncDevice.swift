import Foundation
import StratusCloudKit

/// One device of a CKSyncEngine app as Apple documents it: its own copy of the notes (each kept as the last record
/// the server answered, with the text the user typed), the engine's state kept from every `.stateUpdate`, and the
/// usual answers to failures (merge a conflict with the server's record, make a missing zone again).
final class CloudKitSyncDevice: CKSyncEngineDelegate, @unchecked Sendable {
    static let zoneID = CKRecordZone.ID(zoneName: "Notes")

    private let lock = NSLock()
    private var notes: [String: CKRecord] = [:]
    private(set) var savedState: CKSyncEngine.State.Serialization?
    private var log: [String] = []
    /// Makes the zone again when a save says it is missing (as apps do); off to see the failure stay pending.
    var recreatesMissingZones = true
    /// Holds every fetch at its start until the task running it is cancelled (to see `cancelOperations()`).
    var holdsFetches = false
    /// Notes written without a pending change, handed over as untracked changes.
    private var untracked: [String] = []
    private(set) var engine: CKSyncEngine!

    init(_ container: CKContainer, state: CKSyncEngine.State.Serialization? = nil, automaticallySync: Bool = false) {
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: state, delegate: self)
        configuration.automaticallySync = automaticallySync
        savedState = state
        engine = CKSyncEngine(configuration)
    }

    var events: [String] { lock.withLock { log } }
    var texts: [String: String] { lock.withLock { notes.compactMapValues { $0["text"] as? String } } }
    func record(_ name: String) -> CKRecord? { lock.withLock { notes[name] } }

    /// Writes a note here and tells the engine.
    func write(_ name: String, _ text: String, in zoneID: CKRecordZone.ID = zoneID) {
        let id = CKRecord.ID(recordName: name, zoneID: zoneID)
        lock.withLock {
            let record = notes[name] ?? CKRecord(recordType: "Note", recordID: id)
            record["text"] = text
            notes[name] = record
        }
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(id)])
    }

    /// Writes a note here without adding a pending change: the app says it has untracked changes instead.
    func writeUntracked(_ name: String, _ text: String) {
        lock.withLock {
            let record = notes[name] ?? CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: name, zoneID: Self.zoneID))
            record["text"] = text
            notes[name] = record
            untracked.append(name)
        }
        engine.state.hasPendingUntrackedChanges = true
    }

    func delete(_ name: String) {
        let id = lock.withLock { notes.removeValue(forKey: name)?.recordID } ?? CKRecord.ID(recordName: name, zoneID: Self.zoneID)
        engine.state.add(pendingRecordZoneChanges: [.deleteRecord(id)])
    }

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        lock.withLock { log.append(Self.describe(event)) }
        switch event {
        case .willFetchChanges where holdsFetches:
            // A stream nothing yields to ends when the task waiting on it is cancelled.
            let (held, release) = AsyncStream<Void>.makeStream()
            for await _ in held {}
            release.finish()
        case .stateUpdate(let update):
            lock.withLock { savedState = update.stateSerialization }
        case .fetchedRecordZoneChanges(let changes):
            lock.withLock {
                for modification in changes.modifications { notes[modification.record.recordID.recordName] = modification.record }
                for deletion in changes.deletions { notes[deletion.recordID.recordName] = nil }
            }
        case .fetchedDatabaseChanges(let changes):
            let deleted = Set(changes.deletions.map(\.zoneID))
            lock.withLock { notes = notes.filter { !deleted.contains($0.value.recordID.zoneID) } }
        case .sentRecordZoneChanges(let sent):
            lock.withLock {
                for saved in sent.savedRecords where notes[saved.recordID.recordName] != nil { notes[saved.recordID.recordName] = saved }
            }
            for failure in sent.failedRecordSaves {
                let id = failure.record.recordID
                switch failure.error.code {
                case .serverRecordChanged:
                    // The server's record, with this device's text on top (the last writer wins).
                    guard let server = failure.error.serverRecord else { continue }
                    lock.withLock {
                        server["text"] = notes[id.recordName]?["text"] as? String
                        notes[id.recordName] = server
                    }
                    syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(id)])
                case .zoneNotFound where recreatesMissingZones:
                    syncEngine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: id.zoneID))])
                    syncEngine.state.add(pendingRecordZoneChanges: [.saveRecord(id)])
                default:
                    break
                }
            }
        default:
            break
        }
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let handOver: [CKRecord] = lock.withLock {
            defer { untracked = [] }
            return untracked.compactMap { notes[$0] }
        }
        if !handOver.isEmpty { return CKSyncEngine.RecordZoneChangeBatch(recordsToSave: handOver) }
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { id in
            self.lock.withLock { self.notes[id.recordName] }
        }
    }

    static func describe(_ event: CKSyncEngine.Event) -> String {
        switch event {
        case .accountChange(let change):
            switch change.changeType {
            case .signIn: "signIn"
            case .signOut: "signOut"
            case .switchAccounts: "switchAccounts"
            }
        case .sentRecordZoneChanges(let sent):
            "sent saved=\(sent.savedRecords.map(\.recordID.recordName).sorted()) failed=\(sent.failedRecordSaves.map { "\($0.record.recordID.recordName):\($0.error.code)" }.sorted()) deleted=\(sent.deletedRecordIDs.map(\.recordName).sorted())"
        case .sentDatabaseChanges(let sent):
            "sentZones saved=\(sent.savedZones.map(\.zoneID.zoneName).sorted())"
        case .fetchedRecordZoneChanges(let changes):
            "fetched modified=\(changes.modifications.map(\.record.recordID.recordName).sorted()) deleted=\(changes.deletions.map(\.recordID.recordName).sorted())"
        default:
            event.description
        }
    }
}
