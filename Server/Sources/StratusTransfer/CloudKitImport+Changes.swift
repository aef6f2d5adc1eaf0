import Foundation
import StratusModel

/// A run of `stratus import cloudkit` after one that copied every type: it copies only what changed at the source
/// since (records written or modified, and deletions), so that a move off CloudKit is a bulk copy while apps still
/// write to the source, then a short final run (docs/import-export.md#moving-while-apps-write).
///
/// It compares each record's modification time on both sides (the import keeps the source's stamps): a record the
/// source has at another time, or the target lacks, is read again (`records/lookup`) and saved; a record the target
/// has and the source no longer lists is deleted. Reading the stamps costs one pass over the names of every type on
/// each side, without fields or files.
extension CloudKitImport {
    /// The changes of every type, then the state saved with each type's digest kept up to date.
    func update(_ types: [String], state: inout ImportState, progress: inout ImportProgress, reporter: TransferReporter) async throws {
        output("updating from \(options.statePath): copying what changed at the source since the last run")
        var summary: [String] = []
        for type in types {
            let (changed, deleted) = try await update(type, state: &state, progress: &progress, reporter: reporter)
            summary.append("\(type) \(changed) changed, \(deleted) deleted")
        }
        output("changes copied: " + summary.joined(separator: "; "))
    }

    /// Copies one type's changes; answers how many records were saved and deleted.
    private func update(_ type: String, state: inout ImportState, progress: inout ImportProgress, reporter: TransferReporter) async throws -> (Int, Int) {
        let sourceStamps = try await sourceStamps(of: type)
        let targetRecords = try await targetRecords(of: type)
        let changed = sourceStamps.filter { name, stamp in targetRecords[name]?.modified?.timestamp != stamp }.keys.sorted()
        // A `Users` record belongs to an account (one may have signed up here already): it is updated, never deleted.
        var deleted = type == "Users" ? [] : targetRecords.keys.filter { sourceStamps[$0] == nil }.sorted()
        var typeProgress = state.types[type] ?? .init()
        var saved = 0

        for start in stride(from: 0, to: changed.count, by: options.pageSize) {
            let names = Array(changed[start..<min(start + options.pageSize, changed.count)])
            var records: [ImportedRecord] = []
            var bytes: Int64 = 0
            for record in try await source.lookup(names) {
                // Deleted at the source since it was listed.
                if record.serverErrorCode == "NOT_FOUND" {
                    if targetRecords[record.recordName] != nil, type != "Users" { deleted.append(record.recordName) }
                    continue
                }
                let (imported, fileBytes) = try await importable(record, type: type)
                bytes += fileBytes
                records.append(imported)
            }
            if !records.isEmpty { try await target.importRecords(records) }
            for record in records {
                if let old = targetRecords[record.recordName] { typeProgress.digest.removeAsRead(old, type: type) }
                typeProgress.digest.add(recordName: record.recordName, recordType: type, created: record.created, modified: record.modified, fields: record.fields)
            }
            typeProgress.bytes += bytes
            state.types[type] = typeProgress
            try state.save(to: options.statePath)
            saved += records.count
            progress.add(records: records.count, bytes: bytes)
            output("\(type): \(saved)/\(changed.count) changed records copied")
            await report(reporter, state, progress, .running)
        }

        for start in stride(from: 0, to: deleted.count, by: options.pageSize) {
            let names = Array(deleted[start..<min(start + options.pageSize, deleted.count)])
            try await target.deleteRecords(names)
            for name in names {
                if let old = targetRecords[name] { typeProgress.digest.removeAsRead(old, type: type) }
            }
            state.types[type] = typeProgress
            try state.save(to: options.statePath)
        }
        typeProgress.total = typeProgress.digest.count
        state.types[type] = typeProgress
        try state.save(to: options.statePath)
        return (saved, deleted.count)
    }

    /// Each record of the type the source lists, with its modification time, read without fields.
    private func sourceStamps(of type: String) async throws -> [String: Int64] {
        var stamps: [String: Int64] = [:]
        var marker: String?
        repeat {
            let page = try await source.query(recordType: type, continuationMarker: marker, limit: options.pageSize, desiredKeys: [])
            for record in page.records where record.serverErrorCode == nil {
                stamps[record.recordName] = (record.modified ?? record.created)?.timestamp ?? 0
            }
            marker = page.continuationMarker
        } while marker != nil
        return stamps
    }

    /// Each record of the type the target holds, as verification reads it.
    private func targetRecords(of type: String) async throws -> [String: WireRecord] {
        var records: [String: WireRecord] = [:]
        var marker: String?
        repeat {
            let page = try await target.query(recordType: type, continuationMarker: marker, limit: 200)
            for record in page.records where record.serverErrorCode == nil { records[record.recordName] = record }
            marker = page.continuationMarker
        } while marker != nil
        return records
    }
}

extension RecordDigest {
    /// Takes out a record as the target answered it (as verification adds it).
    fileprivate mutating func removeAsRead(_ record: WireRecord, type: String) {
        remove(recordName: record.recordName, recordType: type, created: record.created, modified: record.modified, fields: record.fields ?? [:])
    }
}
