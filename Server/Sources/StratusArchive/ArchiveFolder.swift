import Crypto
import Foundation
import StratusModel

/// An archive folder being written (docs/import-export.md): the schemas, the JSON-lines files, the asset files
/// and, last, the manifest. ``ContainerExport`` writes a whole container through it; the server writes one
/// user's data (`account/export`).
public final class ArchiveFolder {
    public let path: String
    private var manifest: ArchiveManifest
    private let accounts: JSONLinesWriter
    private let zones: JSONLinesWriter
    private let records: JSONLinesWriter
    private let subscriptions: JSONLinesWriter
    private var files: Files

    /// Makes the folder, which must not exist.
    public init(path: String, container: String, includesSecrets: Bool) throws {
        guard !FileManager.default.fileExists(atPath: path) else { throw ArchiveError("\(path) exists already") }
        try FileManager.default.createDirectory(atPath: path + "/schema", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: path + "/" + ArchiveFormat.files, withIntermediateDirectories: true)
        self.path = path
        manifest = ArchiveManifest(container: container, exportedAt: Date().formatted(.iso8601), includesSecrets: includesSecrets)
        accounts = try JSONLinesWriter(path: path + "/" + ArchiveFormat.accounts)
        zones = try JSONLinesWriter(path: path + "/" + ArchiveFormat.zones)
        records = try JSONLinesWriter(path: path + "/" + ArchiveFormat.records)
        subscriptions = try JSONLinesWriter(path: path + "/" + ArchiveFormat.subscriptions)
        files = Files(folder: path + "/" + ArchiveFormat.files)
    }

    /// The container's API token at the source, written into the manifest (a whole container's export).
    public var apiToken: String? {
        get { manifest.apiToken }
        set { manifest.apiToken = newValue }
    }

    /// Records written so far.
    public var recordCount: Int { records.count }
    /// Bytes of asset files written so far.
    public var fileBytes: Int64 { files.bytes }

    public func writeSchema(_ text: String, environment: Environment) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/" + ArchiveFormat.schema(environment)))
    }

    public func add(_ account: AccountEntry) throws {
        try accounts.write(account)
    }

    /// A custom zone of a user's private database.
    public func addZone(_ zoneName: String, of owner: String, environment: Environment) throws {
        try zones.write(ZoneLine(environment: environment, ownerRecordName: owner, zoneName: zoneName))
    }

    /// A record of a zone: of the public database (`owner` nil), or of `owner`'s private one.
    public func add(_ record: ImportedRecord, environment: Environment, database: DatabaseScope, owner: String?, zoneName: String) throws {
        try records.write(RecordLine(environment: environment, database: database, ownerRecordName: owner, zoneName: zoneName, record: record))
    }

    public func addSubscription(_ subscription: JSONValue, of owner: String, environment: Environment, database: DatabaseScope) throws {
        try subscriptions.write(SubscriptionLine(environment: environment, database: database, ownerRecordName: owner, subscription: subscription))
    }

    /// Keeps an asset file once and answers the value an archived record holds for it: `{file, fileChecksum, size}`.
    public func addFile(_ data: Data) throws -> JSONValue {
        let name = try files.add(data)
        return .object(["file": .string(name), "fileChecksum": .string(Data(SHA256.hash(data: data)).base64EncodedString()), "size": .integer(Int64(data.count))])
    }

    /// Closes the files and writes the manifest.
    @discardableResult
    public func finish() throws -> ArchiveManifest {
        for writer in [accounts, zones, records, subscriptions] { try writer.close() }
        manifest.accounts = accounts.count
        manifest.zones = zones.count
        manifest.records = records.count
        manifest.subscriptions = subscriptions.count
        manifest.files = files.count
        manifest.fileBytes = files.bytes
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(manifest).write(to: URL(fileURLWithPath: path + "/" + ArchiveFormat.manifest))
        return manifest
    }
}
