import Foundation
import StratusModel
import StratusStore

/// The one pipeline every record write goes through, from the HTTP API and from functions alike: the request's
/// limits and shape, the storage quota, the `beforeSave` functions, the store, then the bytes noted against the
/// quota. Refusals of single records come back as their results; a refusal of the whole write is thrown.
package struct RecordWrites: Sendable {
    package let store: any Store
    package let quotas: StorageQuotas

    package init(store: any Store, quotas: StorageQuotas) {
        self.store = store
        self.quotas = quotas
    }

    /// What one `records/modify` asks, its zone already resolved for its caller.
    package struct Write: Sendable {
        package var operations: [RecordOperationInput]
        package var zone: ZoneRef
        /// `nil`: CloudKit's default, atomic.
        package var atomic: Bool?
        package var caller: Caller
        /// The request's size, counted against the zone's database's storage quota when it saves anything.
        package var bytes: Int64
        package var timestamp: Int64

        package init(operations: [RecordOperationInput], zone: ZoneRef, atomic: Bool?, caller: Caller, bytes: Int64, timestamp: Int64) {
            self.operations = operations
            self.zone = zone
            self.atomic = atomic
            self.caller = caller
            self.bytes = bytes
            self.timestamp = timestamp
        }
    }

    /// Refuses a write with more operations than its kind allows, before anything else is read.
    /// - Throws: ``ServiceError`` (`invalidArgument`).
    package static func checkCount(of operations: [RecordOperationInput], atomic: Bool?, zoneName: String?) throws {
        let limit = RecordLimits.maximumOperations(atomic: atomic, zoneName: zoneName)
        guard operations.count <= limit else {
            throw ServiceError.invalidArgument("a request may have at most \(limit) operations, not \(operations.count)")
        }
    }

    /// Writes `write`, with `beforeSave` run on what it saves: one result per operation, in order.
    /// - Throws: ``ServiceError`` for a malformed or oversized request or a database at its quota; the store's
    ///   errors for a write refused as a whole.
    package func modify(_ write: Write, beforeSave: (any BeforeSaveHook)?) async throws -> [RecordOperationResult] {
        try Self.checkCount(of: write.operations, atomic: write.atomic, zoneName: write.zone.zoneName)
        let checked = try Self.operations(from: write.operations)
        let database = write.zone.database
        let saves = checked.contains { !$0.type.isDelete }
        if saves { try await quotas.checkRoom(for: write.bytes, in: database) }
        let hooked = try await beforeSave?.run(checked, zone: write.zone) ?? BeforeSaveOutcome(operations: checked, refusals: [:])
        let atomic = write.atomic ?? true
        var results: [RecordOperationResult]
        if hooked.refusals.isEmpty || !atomic {
            let written = hooked.operations.indices.filter { hooked.refusals[$0] == nil }
            let saved = written.isEmpty ? [] : try await store.modifyRecords(RecordBatch(
                zone: write.zone, operations: written.map { hooked.operations[$0] }, atomic: atomic,
                caller: write.caller, timestamp: write.timestamp
            ))
            if saves { try await quotas.noteAccepted(write.bytes, in: database) }
            // Every index is filled: the written operations from the store here, the refused ones below.
            results = hooked.operations.map { .failed(RecordFailure(recordName: $0.recordName, error: StorageError(.internalFailure, ""))) }
            for (index, result) in zip(written, saved) { results[index] = result }
        } else {
            results = hooked.operations.map { operation in
                .failed(RecordFailure(recordName: operation.recordName, error: StorageError(
                    .atomicFailure, "another record of this atomic batch was refused by a beforeSave function"
                )))
            }
        }
        for (index, error) in hooked.refusals {
            results[index] = .failed(RecordFailure(recordName: hooked.operations[index].recordName, error: error))
        }
        return results
    }

    /// Checks operations for shape: names present and valid, one operation per record; a create without a name
    /// gets a new one.
    /// - Throws: ``ServiceError`` (`invalidArgument`) naming the operation.
    package static func operations(from inputs: [RecordOperationInput]) throws -> [RecordOperation] {
        var seen = Set<String>()
        return try inputs.enumerated().map { index, input in
            var name = input.record.recordName
            if name == nil && input.operationType == .create {
                name = UUID().uuidString
            }
            guard let name else {
                throw ServiceError.invalidArgument("operations[\(index)].record.recordName is required for \(input.operationType.rawValue)")
            }
            guard RecordNames.isValidName(name) else {
                throw ServiceError.invalidArgument("operations[\(index)].record.recordName '\(name)' is not a valid record name")
            }
            guard seen.insert(name).inserted else {
                throw ServiceError.invalidArgument("record \(name) appears in more than one operation; send one operation per record")
            }
            if case .set(let parent) = input.record.parent, !RecordNames.isValidName(parent) {
                throw ServiceError.invalidArgument("operations[\(index)].record.parent.recordName '\(parent)' is not a valid record name")
            }
            return RecordOperation(
                type: input.operationType, recordName: name, recordType: input.record.recordType,
                recordChangeTag: input.record.recordChangeTag, fields: input.record.fields, parent: input.record.parent,
                share: try ShareInputs.change(from: input.record, at: index), createShortGUID: input.record.createShortGUID ?? false
            )
        }
    }
}
