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
        guard !state.pendingDatabaseChanges.isEmpty || !state.pendingRecordZoneChanges.isEmpty else { return }
        try await checkAccount()
        await emit(.willSendChanges)
        try await sendDatabaseChanges()
        for _ in 0..<3 {
            guard try await sendRecordPass(reason: reason) else { break }
        }
        await emit(.didSendChanges)
    }

    /// Sends the pending zone changes in one request.
    private func sendDatabaseChanges() async throws {
        let changes = state.pendingDatabaseChanges
        guard !changes.isEmpty else { return }
        let saves = changes.compactMap { if case .saveZone(let id) = $0 { id } else { nil } }
        let deletes = changes.compactMap { if case .deleteZone(let id) = $0 { id } else { nil } }
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

    /// One pass over the pending record changes, batch by batch; whether another pass is worth making (a change
    /// was added again during this one).
    private func sendRecordPass(reason: SendChangesContext.Reason) async throws -> Bool {
        var attempted: [Record.ID: Int] = [:]
        var addedAgain = false
        while true {
            let pending = state.pendingRecordZoneChanges.filter { attempted[$0.recordID] != state.versions[$0.recordID] }
            guard !pending.isEmpty, let delegate = currentDelegate,
                let batch = await delegate.nextRecordZoneChangeBatch(SendChangesContext(reason: reason, pendingChanges: pending), syncEngine: self)
            else { break }
            state.remove(batch.droppedSaves)
            let sent = batch.recordsToSave.map { PendingRecordZoneChange.saveRecord($0.recordID) } + batch.recordIDsToDelete.map(PendingRecordZoneChange.deleteRecord)
            guard !sent.isEmpty else { continue }
            let versions = Dictionary(sent.map { ($0.recordID, state.versions[$0.recordID] ?? 0) }, uniquingKeysWith: { first, _ in first })
            for (id, version) in versions { attempted[id] = version }
            state.batchesSent += 1
            var receipt = BatchReceipt(number: state.batchesSent, label: batch.label, sentAt: Date(), entries: [])
            let results: (saveResults: [Record.ID: Result<Record, any Error>], deleteResults: [Record.ID: Result<Void, any Error>])
            do {
                results = try await database.modifyRecords(
                    saving: batch.recordsToSave, deleting: batch.recordIDsToDelete, savePolicy: .ifServerRecordUnchanged, atomically: false
                )
            } catch {
                let error = Self.stratusError(error)
                receipt.entries = sent.map { BatchReceipt.Entry(change: $0, outcome: .pending(error)) }
                await emit(.sentBatch(receipt))
                await emit(.stateUpdate(state.serialization))
                throw error
            }
            var outcome = BatchOutcome()
            let unanswered = StratusError(.networkFailure, "the server's answer named no result for it")
            for record in batch.recordsToSave {
                switch results.saveResults[record.recordID] {
                case .success(let saved)?: outcome.saved(saved)
                case .failure(let error)?: outcome.failed(record, Self.stratusError(error))
                case nil: outcome.entries.append(BatchReceipt.Entry(change: .saveRecord(record.recordID), outcome: .pending(unanswered)))
                }
            }
            for id in batch.recordIDsToDelete {
                switch results.deleteResults[id] {
                case .success?: outcome.deleted(id)
                case .failure(let error)?: outcome.failedDelete(id, Self.stratusError(error))
                case nil: outcome.entries.append(BatchReceipt.Entry(change: .deleteRecord(id), outcome: .pending(unanswered)))
                }
            }
            receipt.entries = outcome.entries
            // Only what is still the change that was sent leaves the pending changes; a change the app added while
            // the batch was out stays.
            state.remove(outcome.finished.filter { state.versions[$0.recordID] == versions[$0.recordID] })
            await emit(.sentRecordZoneChanges(
                savedRecords: outcome.savedRecords, failedRecordSaves: outcome.failedSaves,
                deletedRecordIDs: outcome.deletedIDs, failedRecordDeletes: outcome.failedDeletes
            ))
            await emit(.sentBatch(receipt))
            await emit(.stateUpdate(state.serialization))
            if let retry = outcome.retry { throw retry }
            addedAgain = addedAgain || state.pendingRecordZoneChanges.contains { change in
                versions[change.recordID].map { state.versions[change.recordID] != $0 } ?? false
            }
        }
        return addedAgain && !state.pendingRecordZoneChanges.isEmpty
    }

    /// What one batch's results come to.
    private struct BatchOutcome {
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
            finished.append(.saveRecord(record.recordID))
            entries.append(BatchReceipt.Entry(change: .saveRecord(record.recordID), outcome: .failed(error)))
        }

        mutating func deleted(_ id: Record.ID) {
            deletedIDs.append(id)
            finished.append(.deleteRecord(id))
            entries.append(BatchReceipt.Entry(change: .deleteRecord(id), outcome: .deleted))
        }

        mutating func failedDelete(_ id: Record.ID, _ error: StratusError) {
            if error.code == .unknownItem { deleted(id); return }
            if error.isWorthRetrying {
                retry = error
                entries.append(BatchReceipt.Entry(change: .deleteRecord(id), outcome: .pending(error)))
                return
            }
            failedDeletes[id] = error
            finished.append(.deleteRecord(id))
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
