import Foundation

/// Where an import stands, written to its state file after every page the target saved, so that an import
/// stopped at any moment resumes with the first page not yet saved.
struct ImportState: Codable, Sendable {
    /// What one record type has come to.
    struct TypeProgress: Codable, Sendable {
        /// The records the source has of the type, counted before the copy began.
        var total: Int?
        /// Where the next page starts; nil before the first page.
        var continuationMarker: String?
        var isDone = false
        /// The records copied so far: their count and checksum.
        var digest = RecordDigest()
        /// The asset bytes copied so far.
        var bytes: Int64 = 0
    }

    var sourceURL: String
    var container: String
    var environment: String
    var types: [String: TypeProgress] = [:]
    /// Names the import on the target's console, across its runs.
    var transferID = TransferReporter.newID("import cloudkit")
    /// When the first run began, in milliseconds since 1970.
    var startedAt = Int64(Date().timeIntervalSince1970 * 1000)

    /// Records copied so far, of every type.
    var recordsDone: Int { types.values.reduce(0) { $0 + $1.digest.count } }
    /// Records to copy, once every type is counted.
    var recordsTotal: Int? {
        types.values.contains { $0.total == nil } || types.isEmpty ? nil : types.values.reduce(0) { $0 + ($1.total ?? 0) }
    }
    var bytes: Int64 { types.values.reduce(0) { $0 + $1.bytes } }

    /// The state kept at `path`, or nil when there is none yet.
    static func load(from path: String) throws -> ImportState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(ImportState.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw TransferError("the state file \(path) cannot be read (\(error)); remove it to start the import over")
        }
    }

    /// Writes the state whole: to a new file first, then renamed over the old one.
    func save(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let partial = path + ".partial"
        try encoder.encode(self).write(to: URL(fileURLWithPath: partial))
        guard rename(partial, path) == 0 else { throw TransferError("cannot write the state file \(path): \(String(cString: strerror(errno)))") }
    }
}
