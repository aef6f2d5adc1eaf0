import Foundation

extension SyncEngine {
    /// Sends the pending changes: zone changes first, then record changes in batches of at most 200, asking the
    /// delegate for each batch. Each batch is reported with its per-record failures; a change whose record the
    /// app merged and added again during the send is sent in another pass (at most three).
    /// - Throws: ``StratusError`` when the network or the server failed in a way retrying fixes; what was not sent
    ///   stays pending.
    public func sendChanges() async throws {
        try await exclusively { try await send(reason: .explicit) }
    }

    func send(reason: SendChangesContext.Reason) async throws {
        guard !state.pendingDatabaseChanges.isEmpty || state.hasPendingRecordChanges || hasUntrackedChanges else { return }
        try await checkAccount()
        await emit(.willSendChanges)
        // Zones go first; a zone the app asks for again during the send (its records failed with zoneNotFound) is
        // made in the next round, and its records sent after it.
        for _ in 0..<3 {
            try await sendDatabaseChanges()
            try await fetchZonesBeforeFirstSend()
            for _ in 0..<3 {
                guard try await sendAtomicGroups(reason: reason) else { break }
            }
            for _ in 0..<3 {
                guard try await sendRecordPass(reason: reason) else { break }
            }
            if state.pendingDatabaseChanges.isEmpty { break }
        }
        await emit(.didSendChanges)
    }

    /// Whether the app said it has changes to send that it does not track as pending ones.
    private var hasUntrackedChanges: Bool {
        configuration.hasUntrackedChanges?() ?? false
    }

    /// Sends the pending zone changes in one request.
    private func sendDatabaseChanges() async throws {
        let changes = state.pendingDatabaseChanges
        guard !changes.isEmpty else { return }
        let deletes = changes.compactMap { if case .deleteZone(let id) = $0 { id } else { nil } }
        let saves = changes.compactMap { if case .saveZone(let id) = $0 { id } else { nil } }
        // A zone deleted and made again here is deleted on the server first, then made again empty.
        let remade = saves.filter(deletes.contains)
        try await sendZoneChanges(saves: saves.filter { !remade.contains($0) }, deletes: deletes)
        if !remade.isEmpty, state.zonesToDelete.isDisjoint(with: remade) {
            try await sendZoneChanges(saves: remade, deletes: [])
        }
    }

    /// Sends zone saves and deletions in one request, and reports them.
    private func sendZoneChanges(saves: [Zone.ID], deletes: [Zone.ID]) async throws {
        let results = try await database.modifyRecordZones(saving: saves.map { Zone(zoneID: $0) }, deleting: deletes)
        var saved: [Zone] = []
        var failedSaves: [(zoneID: Zone.ID, error: StratusError)] = []
        var deleted: [Zone.ID] = []
        var failedDeletes: [Zone.ID: StratusError] = [:]
        var done: [PendingDatabaseChange] = []
        var retry: StratusError?
        for id in saves {
            switch results.saveResults[id] {
            case .success(let zone)?:
                saved.append(zone)
                done.append(.saveZone(id))
            case .failure(let error)?:
                let error = Self.stratusError(error)
                if error.isWorthRetrying { retry = error; continue }
                failedSaves.append((id, error))
                done.append(.saveZone(id))
            case nil:
                continue
            }
        }
        for id in deletes {
            switch results.deleteResults[id] {
            case .success?:
                deleted.append(id)
                done.append(.deleteZone(id))
            case .failure(let error)?:
                let error = Self.stratusError(error)
                if error.code == .zoneNotFound {
                    deleted.append(id)
                } else if error.isWorthRetrying {
                    retry = error
                    continue
                } else {
                    failedDeletes[id] = error
                }
                done.append(.deleteZone(id))
            case nil:
                continue
            }
        }
        state.remove(done)
        for id in deleted { state.zoneTokens[id] = nil }
        await emit(.sentDatabaseChanges(savedZones: saved, failedZoneSaves: failedSaves, deletedZoneIDs: deleted, failedZoneDeletes: failedDeletes))
        await emit(.stateUpdate(state.serialization))
        if let retry { throw retry }
    }

    /// One pass over the pending record changes outside atomic groups, batch by batch; whether another pass is worth
    /// making (a change was added again during this one).
    private func sendRecordPass(reason: SendChangesContext.Reason) async throws -> Bool {
        var attempted: [Record.ID: Int] = [:]
        var addedAgain = false
        while true {
            // Records of a zone waiting to be made wait for it.
            let waiting = state.zonesToSave
            let pending = state.pendingRecordZoneChanges.filter { change in
                attempted[change.recordID] != state.version(of: change.recordID) && state.groups[change.recordID] == nil
                    && !waiting.contains(change.recordID.zoneID)
            }
            guard !pending.isEmpty || hasUntrackedChanges, let delegate = currentDelegate,
                let batch = await delegate.nextRecordZoneChangeBatch(SendChangesContext(reason: reason, pendingChanges: pending), syncEngine: self)
            else { break }
            state.remove(batch.droppedSaves)
            let sent = batch.recordsToSave.map { PendingRecordZoneChange.saveRecord($0.recordID) } + batch.recordIDsToDelete.map(PendingRecordZoneChange.deleteRecord)
            guard !sent.isEmpty else { continue }
            let versions = try await sendBatch(batch)
            for (id, version) in versions { attempted[id] = version }
            addedAgain = addedAgain || state.pendingRecordZoneChanges.contains { change in
                versions[change.recordID].map { state.version(of: change.recordID) != $0 } ?? false
            }
        }
        return addedAgain && !state.pendingRecordZoneChanges.isEmpty
    }

    /// Sends a batch in one request, or, when it is atomic by zone, each zone's part in its own request.
    private func sendBatch(_ batch: RecordZoneChangeBatch) async throws -> [Record.ID: Int] {
        guard batch.atomicByZone else {
            return try await sendBatch(saving: batch.recordsToSave, deleting: batch.recordIDsToDelete, label: batch.label, atomically: false)
        }
        var zones: [Zone.ID] = []
        for id in batch.recordsToSave.map(\.recordID) + batch.recordIDsToDelete where !zones.contains(id.zoneID) { zones.append(id.zoneID) }
        var versions: [Record.ID: Int] = [:]
        for zone in zones {
            let part = try await sendBatch(
                saving: batch.recordsToSave.filter { $0.recordID.zoneID == zone }, deleting: batch.recordIDsToDelete.filter { $0.zoneID == zone },
                label: batch.label, atomically: zone.zoneName != Zone.ID.defaultZoneName
            )
            versions.merge(part) { _, new in new }
        }
        return versions
    }

    /// Sends each atomic group whose records the delegate hands over whole, as one atomic request; whether a change
    /// of a group was added again meanwhile (a merged conflict), so that the groups are worth another pass.
    private func sendAtomicGroups(reason: SendChangesContext.Reason) async throws -> Bool {
        var sentVersions: [Record.ID: Int] = [:]
        var groups: [String] = []
        for change in state.pendingRecordZoneChanges {
            if let group = state.groups[change.recordID], !groups.contains(group) { groups.append(group) }
        }
        for group in groups {
            guard let delegate = currentDelegate else { return false }
            var remaining = state.pendingRecordZoneChanges.filter { state.groups[$0.recordID] == group }
            if let zoneID = remaining.first?.recordID.zoneID, state.zonesToSave.contains(zoneID) { continue }
            var saves: [Record] = []
            var deletes: [Record.ID] = []
            var label: String?
            // The delegate hands records over at most a batch at a time: ask until the group is whole.
            while !remaining.isEmpty {
                let context = SendChangesContext(reason: reason, pendingChanges: remaining, atomicGroup: group)
                guard let batch = await delegate.nextRecordZoneChangeBatch(context, syncEngine: self) else { break }
                state.remove(batch.droppedSaves)
                saves += batch.recordsToSave
                deletes += batch.recordIDsToDelete
                label = label ?? batch.label
                let handed = Set(batch.recordsToSave.map(\.recordID) + batch.recordIDsToDelete + batch.droppedSaves.map(\.recordID))
                let before = remaining.count
                remaining.removeAll { handed.contains($0.recordID) }
                if remaining.count == before { break }
            }
            // A group the delegate did not hand over whole waits: sending part of it would break it.
            guard remaining.isEmpty, !saves.isEmpty || !deletes.isEmpty else { continue }
            let versions = try await sendBatch(saving: saves, deleting: deletes, label: label ?? group, atomically: true)
            sentVersions.merge(versions) { _, new in new }
        }
        return state.pendingRecordZoneChanges.contains { change in
            state.groups[change.recordID] != nil && sentVersions[change.recordID].map { state.version(of: change.recordID) != $0 } ?? false
        }
    }

    /// Sends one batch, reports it (``Event/sentRecordZoneChanges`` and its ``BatchReceipt``), and takes what is
    /// settled out of the pending changes; answers the version of each change sent.
    /// - Throws: ``StratusError`` when the request failed whole, or a change failed in a way retrying fixes.
    private func sendBatch(saving saves: [Record], deleting deletes: [Record.ID], label: String?, atomically: Bool) async throws -> [Record.ID: Int] {
        let sent = saves.map { PendingRecordZoneChange.saveRecord($0.recordID) } + deletes.map(PendingRecordZoneChange.deleteRecord)
        let versions = Dictionary(sent.map { ($0.recordID, state.version(of: $0.recordID) ?? 0) }, uniquingKeysWith: { first, _ in first })
        state.batchesSent += 1
        var receipt = BatchReceipt(number: state.batchesSent, label: label, sentAt: Date(), entries: [])
        let results: (saveResults: [Record.ID: Result<Record, any Error>], deleteResults: [Record.ID: Result<Void, any Error>])
        do {
            results = try await database.modifyRecords(saving: saves, deleting: deletes, savePolicy: .ifServerRecordUnchanged, atomically: atomically)
        } catch {
            let error = Self.stratusError(error)
            receipt.entries = sent.map { BatchReceipt.Entry(change: $0, outcome: .pending(error)) }
            await emit(.sentBatch(receipt))
            await emit(.stateUpdate(state.serialization))
            throw error
        }
        var outcome = BatchOutcome(keepsFailed: configuration.keepsFailedChangesPending)
        let unanswered = StratusError(.networkFailure, "the server's answer named no result for it")
        for record in saves {
            switch results.saveResults[record.recordID] {
            case .success(let saved)?: outcome.saved(saved)
            case .failure(let error)?: outcome.failed(record, Self.stratusError(error))
            case nil: outcome.entries.append(BatchReceipt.Entry(change: .saveRecord(record.recordID), outcome: .pending(unanswered)))
            }
        }
        for id in deletes {
            switch results.deleteResults[id] {
            case .success?: outcome.deleted(id)
            case .failure(let error)?: outcome.failedDelete(id, Self.stratusError(error))
            case nil: outcome.entries.append(BatchReceipt.Entry(change: .deleteRecord(id), outcome: .pending(unanswered)))
            }
        }
        receipt.entries = outcome.entries
        // Only what is still the change that was sent leaves the pending changes; a change the app added while
        // the batch was out stays.
        state.remove(outcome.finished.filter { state.version(of: $0.recordID) == versions[$0.recordID] })
        await emit(.sentRecordZoneChanges(
            savedRecords: outcome.savedRecords, failedRecordSaves: outcome.failedSaves,
            deletedRecordIDs: outcome.deletedIDs, failedRecordDeletes: outcome.failedDeletes
        ))
        await emit(.sentBatch(receipt))
        await emit(.stateUpdate(state.serialization))
        if let retry = outcome.retry { throw retry }
        return versions
    }

    /// What one batch's results come to.
    private struct BatchOutcome {
        /// Whether refused changes stay pending (``Configuration/keepsFailedChangesPending``).
        let keepsFailed: Bool
        var savedRecords: [Record] = []
        var failedSaves: [(record: Record, error: StratusError)] = []
        var deletedIDs: [Record.ID] = []
        var failedDeletes: [Record.ID: StratusError] = [:]
        /// Changes that leave the pending ones: sent, or failed in a way the app must decide on.
        var finished: [PendingRecordZoneChange] = []
        /// A failure retrying fixes: those changes stay pending.
        var retry: StratusError?
        /// Each change's outcome, for the batch's receipt.
        var entries: [BatchReceipt.Entry] = []

        mutating func saved(_ record: Record) {
            savedRecords.append(record)
            finished.append(.saveRecord(record.recordID))
            entries.append(BatchReceipt.Entry(change: .saveRecord(record.recordID), outcome: .saved(record)))
        }

        mutating func failed(_ record: Record, _ error: StratusError) {
            if error.isWorthRetrying {
                retry = error
                entries.append(BatchReceipt.Entry(change: .saveRecord(record.recordID), outcome: .pending(error)))
                return
            }
            failedSaves.append((record, error))
            if !keepsFailed { finished.append(.saveRecord(record.recordID)) }
            entries.append(BatchReceipt.Entry(change: .saveRecord(record.recordID), outcome: .failed(error)))
        }

        mutating func deleted(_ id: Record.ID) {
            deletedIDs.append(id)
            finished.append(.deleteRecord(id))
            entries.append(BatchReceipt.Entry(change: .deleteRecord(id), outcome: .deleted))
        }

        mutating func failedDelete(_ id: Record.ID, _ error: StratusError) {
            // Already gone, alone or with its zone.
            if error.code == .unknownItem || error.code == .zoneNotFound { deleted(id); return }
            if error.isWorthRetrying {
                retry = error
                entries.append(BatchReceipt.Entry(change: .deleteRecord(id), outcome: .pending(error)))
                return
            }
            failedDeletes[id] = error
            if !keepsFailed { finished.append(.deleteRecord(id)) }
            entries.append(BatchReceipt.Entry(change: .deleteRecord(id), outcome: .failed(error)))
        }
    }

    static func stratusError(_ error: any Error) -> StratusError {
        error as? StratusError ?? StratusError(.networkFailure, "\(error)")
    }
}

extension StratusError {
    /// Whether the same request may succeed later: the network, or a server asking to wait.
    var isWorthRetrying: Bool {
        [.networkFailure, .networkUnavailable, .serviceUnavailable, .requestRateLimited].contains(code)
    }
}
