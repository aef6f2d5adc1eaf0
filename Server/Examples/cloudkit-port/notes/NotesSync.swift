import CloudKit
import Foundation

/// A note as the app keeps it, with the system fields of the last record the server answered for it.
struct Note: Codable, Equatable {
    var text: String
    var modified: Date
    var systemFields: Data?
}

/// What one device keeps in its file: the notes by ID, the sync engine's state, and whether the zone exists.
struct NotesFile: Codable {
    var notes: [String: Note] = [:]
    var engineState: CKSyncEngine.State.Serialization?
    var zoneSaved = false
}

/// The app's sync layer: a `CKSyncEngine` over the private database, one zone of notes.
final class NotesSync: CKSyncEngineDelegate, @unchecked Sendable {
    static let zoneID = CKRecordZone.ID(zoneName: "Notes", ownerName: CKCurrentUserDefaultName)

    private let lock = NSLock()
    private let url: URL
    private var file: NotesFile
    private(set) var engine: CKSyncEngine!
    /// What happened during the last sync, for the user.
    private(set) var log: [String] = []

    init(container: CKContainer, url: URL) throws {
        self.url = url
        if let data = try? Data(contentsOf: url) {
            file = try JSONDecoder().decode(NotesFile.self, from: data)
        } else {
            file = NotesFile()
        }
        var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: file.engineState, delegate: self)
        configuration.automaticallySync = false
        engine = CKSyncEngine(configuration)
    }

    var notes: [String: String] {
        lock.withLock { file.notes.mapValues(\.text) }
    }

    func save(_ id: String, text: String) {
        let needsZone: Bool = lock.withLock {
            var note = file.notes[id] ?? Note(text: text, modified: Date(), systemFields: nil)
            note.text = text
            note.modified = Date()
            file.notes[id] = note
            return !file.zoneSaved
        }
        if needsZone {
            engine.state.add(pendingDatabaseChanges: [.saveZone(CKRecordZone(zoneID: Self.zoneID))])
        }
        engine.state.add(pendingRecordZoneChanges: [.saveRecord(recordID(id))])
        persist()
    }

    func delete(_ id: String) {
        lock.withLock { _ = file.notes.removeValue(forKey: id) }
        engine.state.add(pendingRecordZoneChanges: [.deleteRecord(recordID(id))])
        persist()
    }

    /// Sends what this device changed, then fetches what others did.
    func sync() async throws {
        try await engine.sendChanges()
        try await engine.fetchChanges()
    }

    private func recordID(_ id: String) -> CKRecord.ID {
        CKRecord.ID(recordName: id, zoneID: Self.zoneID)
    }

    private func persist() {
        let data = lock.withLock { try? JSONEncoder().encode(file) }
        try? data?.write(to: url, options: .atomic)
    }

    // MARK: - Records

    /// The record to send for a note: its last known server record when there is one, with the note's values.
    private func record(for id: String) -> CKRecord? {
        lock.withLock {
            guard let note = file.notes[id] else { return nil }
            var record: CKRecord?
            if let fields = note.systemFields, let coder = try? NSKeyedUnarchiver(forReadingFrom: fields) {
                coder.requiresSecureCoding = true
                record = CKRecord(coder: coder)
                coder.finishDecoding()
            }
            let result = record ?? CKRecord(recordType: "Note", recordID: recordID(id))
            result["text"] = note.text as CKRecordValue
            result["modified"] = note.modified as CKRecordValue
            return result
        }
    }

    private static func systemFields(of record: CKRecord) -> Data {
        let coder = NSKeyedArchiver(requiringSecureCoding: true)
        record.encodeSystemFields(with: coder)
        coder.finishEncoding()
        return coder.encodedData
    }

    /// Takes a record the server answered; a note edited here and not sent yet keeps its text, with the server's
    /// system fields, so that it saves over this version.
    private func apply(_ record: CKRecord) {
        guard let text = record["text"] as? String else { return }
        let modified = record["modified"] as? Date ?? record.modificationDate ?? Date()
        if engine.state.pendingRecordZoneChanges.contains(.saveRecord(record.recordID)) {
            lock.withLock { file.notes[record.recordID.recordName]?.systemFields = Self.systemFields(of: record) }
            return
        }
        lock.withLock {
            file.notes[record.recordID.recordName] = Note(text: text, modified: modified, systemFields: Self.systemFields(of: record))
        }
    }

    // MARK: - CKSyncEngineDelegate

    func handleEvent(_ event: CKSyncEngine.Event, syncEngine: CKSyncEngine) async {
        switch event {
        case .stateUpdate(let update):
            lock.withLock { file.engineState = update.stateSerialization }

        case .accountChange(let change):
            switch change.changeType {
            case .signIn:
                break
            case .signOut, .switchAccounts:
                lock.withLock { file = NotesFile() }
            @unknown default:
                break
            }

        case .fetchedDatabaseChanges(let changes):
            for deletion in changes.deletions where deletion.zoneID == Self.zoneID {
                lock.withLock {
                    file.notes = [:]
                    file.zoneSaved = false
                }
            }
            if changes.modifications.contains(where: { $0.zoneID == Self.zoneID }) {
                lock.withLock { file.zoneSaved = true }
            }

        case .fetchedRecordZoneChanges(let changes):
            for modification in changes.modifications {
                apply(modification.record)
            }
            for deletion in changes.deletions {
                lock.withLock { _ = file.notes.removeValue(forKey: deletion.recordID.recordName) }
                log.append("deleted elsewhere: \(deletion.recordID.recordName)")
            }

        case .sentDatabaseChanges(let sent):
            if sent.savedZones.contains(where: { $0.zoneID == Self.zoneID }) {
                lock.withLock { file.zoneSaved = true }
            }

        case .sentRecordZoneChanges(let sent):
            for record in sent.savedRecords {
                lock.withLock { file.notes[record.recordID.recordName]?.systemFields = Self.systemFields(of: record) }
            }
            var saveAgain: [CKSyncEngine.PendingRecordZoneChange] = []
            var zonesAgain: [CKSyncEngine.PendingDatabaseChange] = []
            for failure in sent.failedRecordSaves {
                let id = failure.record.recordID
                switch failure.error.code {
                case .serverRecordChanged:
                    // The newer edit wins; the merged record goes with the server's system fields.
                    guard let server = failure.error.serverRecord else { continue }
                    let serverModified = server["modified"] as? Date ?? .distantPast
                    let local = lock.withLock { file.notes[id.recordName] }
                    if let local, local.modified > serverModified {
                        lock.withLock { file.notes[id.recordName]?.systemFields = Self.systemFields(of: server) }
                        saveAgain.append(.saveRecord(id))
                        log.append("conflict on \(id.recordName): kept this device's edit")
                    } else {
                        apply(server)
                        log.append("conflict on \(id.recordName): took the other device's edit")
                    }
                case .zoneNotFound:
                    zonesAgain.append(.saveZone(CKRecordZone(zoneID: id.zoneID)))
                    saveAgain.append(.saveRecord(id))
                case .unknownItem:
                    lock.withLock { file.notes[id.recordName]?.systemFields = nil }
                    saveAgain.append(.saveRecord(id))
                case .networkFailure, .networkUnavailable, .serviceUnavailable, .requestRateLimited:
                    break
                default:
                    log.append("could not save \(id.recordName): \(failure.error.code)")
                }
            }
            syncEngine.state.add(pendingDatabaseChanges: zonesAgain)
            syncEngine.state.add(pendingRecordZoneChanges: saveAgain)

        case .willFetchChanges, .willFetchRecordZoneChanges, .didFetchRecordZoneChanges, .didFetchChanges, .willSendChanges, .didSendChanges:
            break

        @unknown default:
            break
        }
        persist()
    }

    func nextRecordZoneChangeBatch(_ context: CKSyncEngine.SendChangesContext, syncEngine: CKSyncEngine) async -> CKSyncEngine.RecordZoneChangeBatch? {
        let scope = context.options.scope
        let changes = syncEngine.state.pendingRecordZoneChanges.filter { scope.contains($0) }
        return await CKSyncEngine.RecordZoneChangeBatch(pendingChanges: changes) { recordID in
            self.record(for: recordID.recordName)
        }
    }
}
