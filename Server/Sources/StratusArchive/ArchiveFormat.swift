import Foundation
import StratusModel

/// The files of a container archive (docs/import-export.md): JSON lines, the schemas as text, and the asset files
/// named by their SHA-256, in a folder or a tar of it.
public enum ArchiveFormat {
    public static let name = "stratus-archive"
    public static let version = 1
    package static let manifest = "manifest.json"
    package static let accounts = "accounts.jsonl"
    package static let zones = "zones.jsonl"
    package static let records = "records.jsonl"
    package static let subscriptions = "subscriptions.jsonl"
    package static let files = "files"

    package static func schema(_ environment: Environment) -> String { "schema/\(environment.rawValue).ckdb" }
}

/// `manifest.json`: what the archive holds.
public struct ArchiveManifest: Codable, Sendable {
    public var format = ArchiveFormat.name
    public var version = ArchiveFormat.version
    public var container: String
    /// ISO 8601.
    public var exportedAt: String
    /// Whether accounts carry their password hashes.
    public var includesSecrets: Bool
    public var accounts = 0
    public var zones = 0
    public var records = 0
    public var subscriptions = 0
    public var files = 0
    public var fileBytes: Int64 = 0
    /// The container's API token at the source, which an import keeps when asked (`--keep-api-token`); none in a
    /// user's own export.
    public var apiToken: String?
}

/// A line of `zones.jsonl`: a custom zone of a user's private database.
package struct ZoneLine: Codable, Sendable {
    package var environment: Environment
    package var ownerRecordName: String
    package var zoneName: String
}

/// A line of `records.jsonl`: a record and the zone it is in. An asset value is `{file, fileChecksum, size}`,
/// `file` naming the asset file in `files/`.
package struct RecordLine: Codable, Sendable {
    package var environment: Environment
    package var database: DatabaseScope
    /// For a private database.
    package var ownerRecordName: String?
    package var zoneName: String
    package var record: ImportedRecord

    /// Lines of the same zone go in one import request.
    package var zoneKey: String { "\(environment.rawValue)/\(database.rawValue)/\(ownerRecordName ?? "")/\(zoneName)" }
}

/// A line of `subscriptions.jsonl`: a subscription as its owner made it.
package struct SubscriptionLine: Codable, Sendable {
    package var environment: Environment
    package var database: DatabaseScope
    package var ownerRecordName: String
    package var subscription: JSONValue
}

/// Writes one JSON value per line.
package final class JSONLinesWriter {
    private let handle: FileHandle
    private(set) var count = 0

    package init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { throw ArchiveError("cannot write \(path)") }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    package func write(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try handle.write(contentsOf: try encoder.encode(value) + Data([10]))
        count += 1
    }

    package func close() throws {
        try handle.synchronize()
        try handle.close()
    }
}

/// Reads a JSON-lines file a line at a time.
package struct JSONLinesReader {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// Calls `body` with each line's value, in order.
    package func forEach<Value: Decodable>(_: Value.Type, _ body: (Value) async throws -> Void) async throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return }
        defer { try? handle.close() }
        var pending = Data()
        var number = 0
        func emit(_ line: Data) async throws {
            number += 1
            guard !line.isEmpty else { return }
            let value: Value
            do {
                value = try JSONDecoder().decode(Value.self, from: line)
            } catch {
                throw ArchiveError("\(path), line \(number): \(error)")
            }
            try await body(value)
        }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            pending.append(chunk)
            while let end = pending.firstIndex(of: 10) {
                try await emit(pending[pending.startIndex..<end])
                pending.removeSubrange(pending.startIndex...end)
            }
        }
        try await emit(pending)
    }
}

/// The asset values of a record's fields (`ASSETID` and `ASSETID_LIST`), each replaced by what `transform` makes of it.
public enum AssetValues {
    public static func map(
        _ fields: [String: FieldInput], _ transform: (_ field: String, _ asset: [String: JSONValue]) async throws -> JSONValue
    ) async throws -> [String: FieldInput] {
        var mapped = fields
        for (name, field) in fields where (field.type ?? "").hasPrefix("ASSETID") && field.value != .null {
            func one(_ value: JSONValue) async throws -> JSONValue {
                guard case .object(let asset) = value else { throw ArchiveError("field \(name) holds an asset that is not an object") }
                return try await transform(name, asset)
            }
            var copied = field
            if case .array(let items) = field.value {
                var values: [JSONValue] = []
                for item in items { values.append(try await one(item)) }
                copied.value = .array(values)
            } else {
                copied.value = try await one(field.value)
            }
            mapped[name] = copied
        }
        return mapped
    }
}
