import Foundation
import StratusKit

/// What the store does for its engine: keeps the engine's state, applies fetched pages, settles sent changes and
/// merges conflicts.
extension LocalStore {
    /// Hands the engine the changes written here that its saved state does not hold (it keeps no record changes,
    /// and a crash may come between the two writes); the engine keeps one change per record, so those it had are
    /// not doubled. Also numbers the app's next changes after those kept.
    func handUnsentChangesToEngine() async throws {
        var records: [PendingRecordZoneChange] = []
        var zones: [PendingDatabaseChange] = []
        var last: Int64 = 0
        try file.query("SELECT zone, owner, name, unsent, number FROM records WHERE unsent IS NOT NULL ORDER BY number") { row in
            let id = Record.ID(recordName: row.text(2), zoneID: Zone.ID(zoneName: row.text(0), ownerName: row.text(1)))
            records.append(row.text(3) == "delete" ? .deleteRecord(id) : .saveRecord(id))
            last = max(last, row.integer(4))
        }
        try file.query("SELECT zone, owner, kind, number FROM unsent ORDER BY number") { row in
            let zoneID = Zone.ID(zoneName: row.text(0), ownerName: row.text(1))
            zones.append(row.text(2) == "saveZone" ? .saveZone(zoneID) : .deleteZone(zoneID))
            last = max(last, row.integer(3))
        }
        lastChangeNumber = last
        let state = await engine.state
        let knownRecords = Set(state.pendingRecordZoneChanges)
        let knownZones = Set(state.pendingDatabaseChanges)
        let missingZones = zones.filter { !knownZones.contains($0) }
        let missingRecords = records.filter { !knownRecords.contains($0) }
        if !missingZones.isEmpty { await engine.add(pendingDatabaseChanges: missingZones) }
        if !missingRecords.isEmpty { await engine.add(pendingRecordZoneChanges: missingRecords) }
    }

    func nextBatch(_ context: SyncEngine.SendChangesContext) async -> SyncEngine.RecordZoneChangeBatch? {
        // The records of the changes a batch can hold, read here; a record no longer kept is dropped from the send.
        var records: [Record.ID: Record] = [:]
        for case .saveRecord(let id) in context.pendingChanges.prefix(SyncEngine.RecordZoneChangeBatch.maximumSize) {
            records[id] = try? Self.record(id, in: file)
        }
        return await SyncEngine.RecordZoneChangeBatch(pendingChanges: context.pendingChanges) { [records] id in records[id] }
    }

    func handle(_ event: SyncEngine.Event, from engine: SyncEngine) async {
        guard !writeFailed else { return }
        do {
            switch event {
            case .stateUpdate(let state):
                try keep(state)
            case .fetchedRecordZoneChanges(let zoneID, let modifications, let deletions, let refetched):
                try await apply(zoneID: zoneID, modifications: modifications, deletions: deletions.map(\.recordID), refetched: refetched)
            case .didFetchChanges:
                refetching = []
            case .fetchedDatabaseChanges(_, let deletions):
                try dropZones(deletions)
            case .sentRecordZoneChanges(let saved, let failed, let deleted, let failedDeletes):
                try await settle(saved: saved, failed: failed)
                try await forgetSent(saved.map(\.recordID) + failed.map(\.record.recordID) + deleted + failedDeletes.keys)
            case .sentDatabaseChanges(let saved, let failedSaves, let deleted, let failedDeletes):
                try await forgetSent(zones: saved.map(\.zoneID) + failedSaves.map(\.zoneID) + deleted + failedDeletes.keys)
            case .syncScopeNarrowed(let zones, let keptTypes):
                try dropZones(zones)
                if let keptTypes { try dropTypes(other: keptTypes) }
            case .accountChange:
                var deleted: [Record.ID] = []
                try file.transaction {
                    try file.query("SELECT zone, owner, name FROM records WHERE unsent IS NOT 'delete'") { row in
                        deleted.append(Record.ID(recordName: row.text(2), zoneID: Zone.ID(zoneName: row.text(0), ownerName: row.text(1))))
                    }
                    try file.execute("DELETE FROM records; DELETE FROM unsent")
                }
                notify(.server, deleted: deleted)
            default:
                break
            }
        } catch {
            // The file could not be written: the engine stops, so that its saved state is not moved on past records
            // that were not kept; a later launch fetches them again.
            writeFailed = true
            await self.engine.stop()
            notify(.server, writeFailure: error as? LocalStoreError ?? LocalStoreError("\(error)"))
        }
    }

    /// Keeps the engine's state without its pending record changes, which the records' rows mark one by one (and
    /// hands back to the engine at the next open): a save costs the same however many changes wait. The state is
    /// written only when it changed (tokens, zone changes, the scope).
    private func keep(_ state: SyncEngine.State.Serialization) throws {
        let data = state.dataWithoutPendingChanges
        guard data != keptState else { return }
        try file.run("INSERT OR REPLACE INTO engine (id, state) VALUES (1, ?)", [.blob(data)])
        keptState = data
    }

    /// Forgets the unsent changes of records a sent batch settled, unless the app changed them again meanwhile.
    private func forgetSent(_ recordIDs: [Record.ID]) async throws {
        let state = await engine.state
        let settled = recordIDs.filter { !state.isPending($0) }
        guard !settled.isEmpty else { return }
        try file.transaction {
            for id in settled {
                try file.run("DELETE FROM records WHERE zone = ? AND owner = ? AND name = ? AND unsent = 'delete'", Self.key(id))
                try file.run("UPDATE records SET unsent = NULL, number = NULL WHERE zone = ? AND owner = ? AND name = ? AND unsent = 'save'", Self.key(id))
            }
        }
    }

    /// Forgets the unsent changes of zones a send settled, unless the app changed them again meanwhile.
    private func forgetSent(zones: [Zone.ID]) async throws {
        let pending = Set(await engine.state.pendingDatabaseChanges.map(\.zoneID))
        let settled = zones.filter { !pending.contains($0) }
        guard !settled.isEmpty else { return }
        try file.transaction {
            for zoneID in settled {
                try file.run("DELETE FROM unsent WHERE zone = ? AND owner = ? AND name = ''", [.text(zoneID.zoneName), .text(zoneID.ownerName)])
            }
        }
    }

    /// A fetched page, in one transaction: records saved on the server replace the kept ones, merged with the edits
    /// not sent yet; records deleted there are deleted here, edits and all.
    private func apply(zoneID: Zone.ID, modifications: [Record], deletions: [Record.ID], refetched: Bool) async throws {
        let changes = await engine.state.pendingRecordZoneChanges
        let pending = Set(changes.map(\.recordID))
        let deletedHere = Set(changes.compactMap { if case .deleteRecord(let id) = $0 { id } else { nil } })
        var dropped: [Record.ID] = []
        var cancelled: [PendingRecordZoneChange] = []
        try file.transaction {
            if refetched, !refetching.contains(zoneID) {
                refetching.insert(zoneID)
                for id in try Self.recordIDs(inZone: zoneID, of: file) where !pending.contains(id) {
                    try file.run("DELETE FROM records WHERE zone = ? AND owner = ? AND name = ?", Self.key(id))
                    dropped.append(id)
                }
            }
            // A record deleted here and not sent yet stays deleted: the deletion goes out at the next send.
            for record in modifications where !deletedHere.contains(record.recordID) {
                if pending.contains(record.recordID), let local = try Self.record(record.recordID, in: file) {
                    try Self.put(merged(local, record), into: file)
                } else {
                    try Self.put(record, into: file)
                }
            }
            for id in deletions {
                try file.run("DELETE FROM records WHERE zone = ? AND owner = ? AND name = ?", Self.key(id))
                if pending.contains(id) { cancelled += [.saveRecord(id), .deleteRecord(id)] }
            }
        }
        notify(.server, saved: modifications.map(\.recordID).filter { !deletedHere.contains($0) }, deleted: dropped + deletions)
        if !cancelled.isEmpty { await engine.remove(pendingRecordZoneChanges: cancelled) }
    }

    /// The server's answer to a batch: saved records take the server's version (with any edit made meanwhile on
    /// top); conflicts are merged and sent again; a missing zone is made again first.
    private func settle(saved: [Record], failed: [(record: Record, error: StratusError)]) async throws {
        let pending = Set(await engine.state.pendingRecordZoneChanges.map(\.recordID))
        var resend: [PendingRecordZoneChange] = []
        var zones: [PendingDatabaseChange] = []
        var refused: [Record.ID: StratusError] = [:]
        var deleted: [Record.ID] = []
        try file.transaction {
            for record in saved {
                if pending.contains(record.recordID), let local = try Self.record(record.recordID, in: file) {
                    try Self.put(merged(local, record), into: file)
                } else if try Self.record(record.recordID, in: file) != nil {
                    try Self.put(record, into: file)
                }
            }
            for (sent, error) in failed {
                switch error.code {
                case .serverRecordChanged:
                    guard let server = error.serverRecord else { refused[sent.recordID] = error; continue }
                    let local = try Self.record(sent.recordID, in: file) ?? sent
                    try Self.put(merged(local, server), into: file)
                    resend.append(.saveRecord(sent.recordID))
                case .zoneNotFound:
                    zones.append(.saveZone(sent.recordID.zoneID))
                    resend.append(.saveRecord(sent.recordID))
                case .batchRequestFailed:
                    resend.append(.saveRecord(sent.recordID))
                case .unknownItem:
                    // An edit of a record deleted on the server: deleted here too, as a fetched deletion is.
                    try file.run("DELETE FROM records WHERE zone = ? AND owner = ? AND name = ?", Self.key(sent.recordID))
                    deleted.append(sent.recordID)
                default:
                    refused[sent.recordID] = error
                }
            }
        }
        notify(.server, saved: saved.map(\.recordID) + resend.map(\.recordID), deleted: deleted, refused: refused)
        if !zones.isEmpty { await engine.add(pendingDatabaseChanges: zones) }
        if !resend.isEmpty { await engine.add(pendingRecordZoneChanges: resend) }
    }

    /// The server's version with the local edits merged in, still marked as edited so that they are sent.
    private func merged(_ local: Record, _ server: Record) -> Record {
        var merged = resolveConflict(local, server)
        for key in local.changedKeys { merged[key] = merged.values[key] }
        return merged
    }

    private func dropZones(_ zoneIDs: [Zone.ID]) throws {
        guard !zoneIDs.isEmpty else { return }
        var deleted: [Record.ID] = []
        try file.transaction {
            for zoneID in zoneIDs {
                deleted += try Self.recordIDs(inZone: zoneID, of: file)
                try file.run("DELETE FROM records WHERE zone = ? AND owner = ?", [.text(zoneID.zoneName), .text(zoneID.ownerName)])
            }
        }
        notify(.server, deleted: deleted)
    }

    private func dropTypes(other kept: Set<String>) throws {
        var deleted: [Record.ID] = []
        try file.transaction {
            try file.query("SELECT zone, owner, name, type FROM records WHERE unsent IS NOT 'delete'") { row in
                if !kept.contains(row.text(3)) {
                    deleted.append(Record.ID(recordName: row.text(2), zoneID: Zone.ID(zoneName: row.text(0), ownerName: row.text(1))))
                }
            }
            for id in deleted { try file.run("DELETE FROM records WHERE zone = ? AND owner = ? AND name = ?", Self.key(id)) }
        }
        notify(.server, deleted: deleted)
    }
}
