import Crypto
import Foundation
import StratusAdmin
import StratusModel

/// Writes a container of a running server into an archive folder (`stratus export`, docs/import-export.md): its
/// schemas, accounts with their roles, every database and zone with their records and shares, subscriptions, and
/// the asset files. It reads through the server's admin key, as an operator.
public struct ContainerExport: Sendable {
    public struct Options: Sendable {
        public var serverURL: String
        public var adminKey: String
        public var container: String
        /// The folder to write; it must not exist.
        public var folder: String
        /// Whether accounts keep their password hashes (so that users sign in on the copy as before).
        public var includeSecrets: Bool
        /// Where the archive ends up, as the server's console names it.
        public var destination: String

        public init(serverURL: String, adminKey: String, container: String, folder: String, includeSecrets: Bool, destination: String? = nil) {
            self.serverURL = serverURL
            self.adminKey = adminKey
            self.container = container
            self.folder = folder
            self.includeSecrets = includeSecrets
            self.destination = destination ?? folder
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

    /// Writes the archive folder and answers its manifest, telling the server's console how it goes.
    public func run() async throws -> ArchiveManifest {
        guard !FileManager.default.fileExists(atPath: options.folder) else { throw TransferError("\(options.folder) exists already") }
        let reporter = TransferReporter(connection: connection, container: options.container, kind: "export", peer: options.destination, output: output)
        await reporter.report(.running, done: 0, total: nil, bytes: 0)
        do {
            let manifest = try await write(reporter)
            await reporter.report(
                .finished, done: manifest.records, total: manifest.records, bytes: manifest.fileBytes,
                message: "exported \(manifest.accounts) accounts, \(manifest.records) records, \(manifest.files) files, \(manifest.subscriptions) subscriptions"
            )
            return manifest
        } catch {
            await reporter.report(.failed, done: 0, total: nil, bytes: 0, message: "\(error)")
            throw error
        }
    }

    private func write(_ reporter: TransferReporter) async throws -> ArchiveManifest {
        let folder = options.folder
        try FileManager.default.createDirectory(atPath: folder + "/schema", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/" + ArchiveFormat.files, withIntermediateDirectories: true)
        var manifest = ArchiveManifest(
            container: options.container, exportedAt: Date().formatted(.iso8601), includesSecrets: options.includeSecrets
        )
        let container = AdminClient.escaped(options.container)

        for environment in Environment.allCases {
            let text = try await connection.send("GET", "/admin/1/\(container)/\(environment.rawValue)/schema", what: "reading the \(environment.rawValue) schema")
            try text.write(to: URL(fileURLWithPath: folder + "/" + ArchiveFormat.schema(environment)))
        }

        let accounts = try JSONLinesWriter(path: folder + "/" + ArchiveFormat.accounts)
        var users: [String] = []
        var offset = 0
        while true {
            let page = try await connection.post(
                "/admin/1/\(container)/accounts?offset=\(offset)&limit=200&secrets=\(options.includeSecrets)", EmptyBody(),
                as: AccountEntries.self, what: "reading accounts", method: "GET"
            )
            for account in page.accounts {
                try accounts.write(account)
                users.append(account.userRecordName)
            }
            offset += page.accounts.count
            if !page.moreComing || page.accounts.isEmpty { break }
        }
        try accounts.close()
        manifest.accounts = accounts.count
        output("accounts: \(accounts.count)")

        let records = try JSONLinesWriter(path: folder + "/" + ArchiveFormat.records)
        let zones = try JSONLinesWriter(path: folder + "/" + ArchiveFormat.zones)
        var files = Files(folder: folder + "/" + ArchiveFormat.files)
        for environment in Environment.allCases {
            try await exportZone(ZoneID.defaultZoneName, of: nil, environment: environment, to: records, files: &files)
            await reporter.report(.running, done: records.count, total: nil, bytes: files.bytes)
            for user in users {
                try await exportPrivate(of: user, environment: environment, records: records, zones: zones, files: &files)
                await reporter.report(.running, done: records.count, total: nil, bytes: files.bytes)
            }
        }
        try records.close()
        try zones.close()
        manifest.records = records.count
        manifest.zones = zones.count
        manifest.files = files.count
        manifest.fileBytes = files.bytes
        output("records: \(records.count) in \(zones.count) custom zones and the public databases; files: \(files.count) (\(ImportProgress.size(files.bytes)))")

        let subscriptions = try JSONLinesWriter(path: folder + "/" + ArchiveFormat.subscriptions)
        for environment in Environment.allCases {
            for scope in [DatabaseScope.public, .private] {
                let listed = try await connection.send(
                    "GET", "/admin/1/\(container)/\(environment.rawValue)/subscriptions?database=\(scope.rawValue)", what: "reading subscriptions"
                )
                for entry in try JSONDecoder().decode(ListedSubscriptions.self, from: listed).subscriptions {
                    try subscriptions.write(SubscriptionLine(environment: environment, database: scope, ownerRecordName: entry.owner, subscription: entry.subscription))
                }
            }
        }
        try subscriptions.close()
        manifest.subscriptions = subscriptions.count
        output("subscriptions: \(subscriptions.count)")

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(manifest).write(to: URL(fileURLWithPath: folder + "/" + ArchiveFormat.manifest))
        return manifest
    }

    /// A user's private zones and their records.
    private func exportPrivate(of user: String, environment: Environment, records: JSONLinesWriter, zones: JSONLinesWriter, files: inout Files) async throws {
        let database = OperatorConnection.databasePath(options.container, environment, .private)
        let listed = try await connection.post(database + "/zones/list", EmptyBody(), user: user, as: ListedZones.self, what: "listing \(user)'s zones")
        for zone in listed.zones.map(\.zoneID.zoneName) {
            if zone != ZoneID.defaultZoneName {
                try zones.write(ZoneLine(environment: environment, ownerRecordName: user, zoneName: zone))
            }
            try await exportZone(zone, of: user, environment: environment, to: records, files: &files)
        }
    }

    /// A zone's records, read whole through its change feed: a private zone of `user`, or the public database's.
    private func exportZone(_ zone: String, of user: String?, environment: Environment, to records: JSONLinesWriter, files: inout Files) async throws {
        let scope: DatabaseScope = user == nil ? .public : .private
        let path = OperatorConnection.databasePath(options.container, environment, scope) + "/changes/zone"
        var zoneRecords: [WireRecord] = []
        var token: String?
        var more = true
        while more {
            let answer = try await connection.post(
                path, ZoneChangesQuery(zones: [.init(zoneID: .init(zoneName: zone), syncToken: token)]), user: user,
                as: ZoneChangesAnswer.self, what: "reading \(user.map { "\($0)'s zone \(zone)" } ?? "the public database") (\(environment.rawValue))"
            )
            guard let page = answer.zones.first else { break }
            zoneRecords += page.records.filter { $0.deleted != true && $0.serverErrorCode == nil }
            token = page.syncToken
            more = page.moreComing ?? false
        }
        for record in zoneRecords {
            let archived = try await archive(record, zoneRecords: zoneRecords, files: &files)
            try records.write(RecordLine(environment: environment, database: scope, ownerRecordName: user, zoneName: zone, record: archived))
        }
    }

    /// A record as the archive keeps it: its files saved under `files/`, a share record with its share.
    private func archive(_ record: WireRecord, zoneRecords: [WireRecord], files: inout Files) async throws -> ImportedRecord {
        let fields = try await AssetValues.map(record.fields ?? [:]) { field, asset in
            guard case .string(let url)? = asset["downloadURL"] else {
                throw TransferError("field \(field) of \(record.recordName) holds a file without a downloadURL")
            }
            let answer = try await connection.backoff.run("downloading \(field) of \(record.recordName)") {
                try await HTTP.send("GET", url, headers: ["Authorization": "Bearer \(options.adminKey)"])
            }
            guard answer.status == 200 else { throw TransferError("downloading \(field) of \(record.recordName) failed: \(HTTP.describe(answer))") }
            let name = try files.add(answer.body)
            return .object(["file": .string(name), "fileChecksum": .string(Data(SHA256.hash(data: answer.body)).base64EncodedString()), "size": .integer(Int64(answer.body.count))])
        }
        var share: ImportedShare?
        if record.recordType == ShareRecords.recordType {
            let root = zoneRecords.first { $0.share?.recordName == record.recordName && $0.recordName != record.recordName }?.recordName
            share = ImportedShare(
                rootRecordName: record.recordName == ShareRecords.zoneShareName ? nil : root,
                publicPermission: record.publicPermission ?? .none,
                participants: (record.participants ?? []).filter { $0.type != .owner && $0.acceptanceStatus != .removed }.map {
                    ImportedShare.Participant(
                        userRecordName: $0.userRecordName, emailAddress: $0.emailAddress, phoneNumber: $0.phoneNumber, permission: $0.permission,
                        accepted: $0.acceptanceStatus == .accepted, throughLink: $0.type == .publicUser
                    )
                }
            )
        }
        return ImportedRecord(
            recordName: record.recordName, recordType: record.recordType ?? "", fields: fields, created: record.created ?? .unknown,
            modified: record.modified ?? record.created ?? .unknown, parent: record.parent?.recordName, shortGUID: record.shortGUID, share: share
        )
    }
}

/// The asset files of an archive, each kept once, named by its SHA-256 in hexadecimal.
struct Files {
    let folder: String
    private(set) var count = 0
    private(set) var bytes: Int64 = 0

    init(folder: String) {
        self.folder = folder
    }

    /// Keeps a file and answers its name.
    mutating func add(_ data: Data) throws -> String {
        let name = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let path = folder + "/" + name
        if !FileManager.default.fileExists(atPath: path) {
            try data.write(to: URL(fileURLWithPath: path))
            count += 1
            bytes += Int64(data.count)
        }
        return name
    }
}

struct EmptyBody: Codable {}

struct ListedZones: Decodable {
    struct Entry: Decodable {
        var zoneID: ZoneID
    }
    var zones: [Entry]
}

struct ListedSubscriptions: Decodable {
    struct Entry: Decodable {
        var owner: String
        var subscription: JSONValue
    }
    var subscriptions: [Entry]
}

/// `changes/zone` for one zone, from `syncToken` on.
struct ZoneChangesQuery: Encodable {
    struct Zone: Encodable {
        struct Name: Encodable {
            var zoneName: String
        }
        var zoneID: Name
        var syncToken: String?
    }
    var zones: [Zone]
}

struct ZoneChangesAnswer: Decodable {
    struct Zone: Decodable {
        var records: [WireRecord]
        var syncToken: String?
        var moreComing: Bool?
    }
    var zones: [Zone]
}
