import StratusArchive
import Foundation
import StratusAdmin
import StratusModel
import Synchronization

/// Loads an archive folder that ``ContainerExport`` wrote into a running server (`stratus import archive`), on
/// either backend: the schemas, the accounts and their roles, the zones, the records (names, stamps, parents,
/// short GUIDs and files kept), the shares with their participants, and the subscriptions.
public struct ArchiveImport: Sendable {
    public struct Options: Sendable {
        public var serverURL: String
        public var adminKey: String
        public var folder: String
        /// The archive as the server's console names it.
        public var source: String
        /// Whether the container takes the archive's API token (its token at the source), so that apps keep working.
        public var keepAPIToken: Bool

        public init(serverURL: String, adminKey: String, folder: String, source: String? = nil, keepAPIToken: Bool = false) {
            self.serverURL = serverURL
            self.adminKey = adminKey
            self.folder = folder
            self.source = source ?? folder
            self.keepAPIToken = keepAPIToken
        }
    }

    let options: Options
    let output: @Sendable (String) -> Void
    private let connection: OperatorConnection

    public init(_ options: Options, output: @escaping @Sendable (String) -> Void) {
        self.options = options
        self.output = output
        connection = OperatorConnection(baseURL: options.serverURL, adminKey: options.adminKey, backoff: Backoff(report: output))
    }

    /// The archive's manifest, checked.
    public static func manifest(in folder: String) throws -> ArchiveManifest {
        guard let data = FileManager.default.contents(atPath: folder + "/" + ArchiveFormat.manifest),
            let manifest = try? JSONDecoder().decode(ArchiveManifest.self, from: data), manifest.format == ArchiveFormat.name
        else { throw TransferError("\(folder) is not a Stratus archive (no readable \(ArchiveFormat.manifest))") }
        guard manifest.version <= ArchiveFormat.version else {
            throw TransferError("the archive is of format version \(manifest.version); this stratus reads up to \(ArchiveFormat.version)")
        }
        return manifest
    }

    /// Loads the archive and answers its manifest, telling the server's console how it goes.
    public func run() async throws -> ArchiveManifest {
        let manifest = try Self.manifest(in: options.folder)
        let reporter = TransferReporter(
            connection: connection, container: manifest.container, kind: "import archive",
            peer: "\(options.source) (exported \(manifest.exportedAt))", output: output
        )
        let progress = Counter()
        do {
            try await load(manifest, reporter: reporter, progress: progress)
            try await settleAPIToken(manifest)
            await reporter.report(
                .finished, done: progress.value, total: manifest.records, bytes: manifest.fileBytes,
                message: "imported \(manifest.accounts) accounts, \(manifest.records) records, \(manifest.files) files, \(manifest.subscriptions) subscriptions"
            )
            return manifest
        } catch {
            await reporter.report(.failed, done: progress.value, total: manifest.records, bytes: 0, message: "\(error)")
            throw error
        }
    }

    /// Gives the container the archive's API token when asked; else says which token apps need here.
    private func settleAPIToken(_ manifest: ArchiveManifest) async throws {
        let admin = AdminClient(url: URL(string: connection.baseURL)!, adminKey: connection.adminKey)
        do {
            let current = try await admin.apiToken(for: manifest.container)
            guard let archived = manifest.apiToken else {
                if options.keepAPIToken { throw TransferError("the archive holds no API token to keep (a user's own export carries none)") }
                output("API token of \(manifest.container) here: \(current)")
                return
            }
            if archived == current {
                output("API token kept: apps keep using \(current)")
            } else if options.keepAPIToken {
                try await admin.setAPIToken(archived, container: manifest.container)
                output("API token kept: \(manifest.container) here takes the source's, \(archived), so apps keep working")
            } else {
                output(
                    "API token changed: \(manifest.container) here answers to \(current), not the source's \(archived); apps with the old one get AUTHENTICATION_FAILED. Run again with --keep-api-token to keep the source's"
                )
            }
        } catch let error as AdminError {
            throw TransferError("the server refused the API token: \(error.description)")
        }
    }

    private func load(_ manifest: ArchiveManifest, reporter: TransferReporter, progress: Counter) async throws {
        let container = manifest.container
        let admin = AdminClient(url: URL(string: connection.baseURL)!, adminKey: connection.adminKey)
        do {
            _ = try await admin.apiToken(for: container)
            // Production's schema first (deployed from development), then development's own.
            try await admin.importSchema(try text(ArchiveFormat.schema(.production)), container: container, force: true)
            try await admin.deploy(container: container)
            try await admin.importSchema(try text(ArchiveFormat.schema(.development)), container: container, force: true)
        } catch let error as AdminError {
            throw TransferError("the server refused the archive's schema: \(error.description)")
        }
        output("schemas applied")

        var accounts: [AccountEntry] = []
        let accountsPath = "/admin/1/\(AdminClient.escaped(container))/accounts/import"
        try await lines(ArchiveFormat.accounts).forEach(AccountEntry.self) { account in
            accounts.append(account)
            if accounts.count == 200 {
                _ = try await connection.post(accountsPath, ["accounts": accounts], as: JSONValue.self, what: "creating accounts")
                accounts.removeAll()
            }
        }
        if !accounts.isEmpty { _ = try await connection.post(accountsPath, ["accounts": accounts], as: JSONValue.self, what: "creating accounts") }
        output("accounts: \(manifest.accounts)")

        try await lines(ArchiveFormat.zones).forEach(ZoneLine.self) { zone in
            let body: JSONValue = .object(["operations": .array([.object([
                "operationType": .string("create"), "zone": .object(["zoneID": .object(["zoneName": .string(zone.zoneName)])]),
            ])])])
            _ = try await connection.post(
                OperatorConnection.databasePath(container, zone.environment, .private) + "/zones/modify", body, user: zone.ownerRecordName,
                as: JSONValue.self, what: "creating zone \(zone.zoneName) of \(zone.ownerRecordName)"
            )
        }

        // Records first without their parents, then the records that have one (every parent is there by then),
        // then the shares (their roots placed in their hierarchies).
        for pass in Pass.allCases {
            var batch: [RecordLine] = []
            try await lines(ArchiveFormat.records).forEach(RecordLine.self) { line in
                guard pass.takes(line.record) else { return }
                if let first = batch.first, first.zoneKey != line.zoneKey || batch.count == Self.batchSize {
                    try await save(batch, pass: pass, container: container)
                    if pass != .parents { progress.add(batch.count) }
                    await reporter.report(.running, done: progress.value, total: manifest.records, bytes: 0)
                    batch.removeAll()
                }
                batch.append(line)
            }
            if !batch.isEmpty {
                try await save(batch, pass: pass, container: container)
                if pass != .parents { progress.add(batch.count) }
                await reporter.report(.running, done: progress.value, total: manifest.records, bytes: 0)
            }
        }
        output("records: \(manifest.records); files: \(manifest.files)")

        try await lines(ArchiveFormat.subscriptions).forEach(SubscriptionLine.self) { line in
            let body: JSONValue = .object(["operations": .array([.object(["operationType": .string("create"), "subscription": line.subscription])])])
            _ = try await connection.post(
                OperatorConnection.databasePath(container, line.environment, line.database) + "/subscriptions/modify", body, user: line.ownerRecordName,
                as: JSONValue.self, what: "creating a subscription of \(line.ownerRecordName)"
            )
        }
        output("subscriptions: \(manifest.subscriptions)")
    }

    /// Records per import request (the server takes at most 200).
    static let batchSize = 200

    /// The passes over the records.
    enum Pass: CaseIterable {
        case records, parents, shares

        func takes(_ record: ImportedRecord) -> Bool {
            switch self {
            case .records: record.share == nil
            case .parents: record.share == nil && record.parent != nil
            case .shares: record.share != nil
            }
        }
    }

    /// Saves records of one zone: with their files uploaded on the first pass (afterwards the records hold them).
    private func save(_ lines: [RecordLine], pass: Pass, container: String) async throws {
        guard let zone = lines.first else { return }
        let owner = zone.database == .private ? zone.ownerRecordName : nil
        var records: [ImportedRecord] = []
        for line in lines {
            var record = line.record
            if pass == .records { record.parent = nil }
            record.fields = try await AssetValues.map(record.fields) { field, asset in
                guard pass == .records else { return .object(asset.filter { $0.key != "file" }) }
                guard case .string(let name)? = asset["file"], let file = FileManager.default.contents(atPath: options.folder + "/" + ArchiveFormat.files + "/" + name) else {
                    throw TransferError("record \(record.recordName): field \(field)'s file is missing from the archive")
                }
                let stored = try await connection.upload(
                    file, databasePath: OperatorConnection.databasePath(container, zone.environment, zone.database), recordType: record.recordType,
                    fieldName: field, recordName: record.recordName, user: owner
                )
                return .object(["receipt": .string(stored.receipt), "fileChecksum": .string(stored.fileChecksum), "size": .integer(stored.size)])
            }
            records.append(record)
        }
        try await ImportTarget.importRecords(
            ImportRecordsRequest(database: zone.database, ownerRecordName: owner, zoneName: zone.zoneName, records: records),
            container: container, environment: zone.environment, through: connection
        )
    }

    private func text(_ name: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: options.folder + "/" + name) else { throw TransferError("the archive has no \(name)") }
        return String(decoding: data, as: UTF8.self)
    }

    private func lines(_ name: String) -> JSONLinesReader {
        JSONLinesReader(path: options.folder + "/" + name)
    }
}

/// A count shared by the steps of a load.
final class Counter: Sendable {
    private let count = Mutex(0)

    var value: Int { count.withLock { $0 } }

    func add(_ amount: Int) {
        count.withLock { $0 += amount }
    }
}
