import StratusArchive
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
        let archive = try ArchiveFolder(path: options.folder, container: options.container, includesSecrets: options.includeSecrets)
        let container = AdminClient.escaped(options.container)
        do {
            let admin = AdminClient(url: URL(string: connection.baseURL)!, adminKey: connection.adminKey)
            archive.apiToken = try await admin.containers().first { $0.id == options.container }?.apiToken
        } catch let error as AdminError {
            throw TransferError("reading the container's API token failed: \(error.description)")
        }

        for environment in Environment.allCases {
            let text = try await connection.send("GET", "/admin/1/\(container)/\(environment.rawValue)/schema", what: "reading the \(environment.rawValue) schema")
            try archive.writeSchema(String(decoding: text, as: UTF8.self), environment: environment)
        }

        var users: [String] = []
        var offset = 0
        while true {
            let page = try await connection.post(
                "/admin/1/\(container)/accounts?offset=\(offset)&limit=200&secrets=\(options.includeSecrets)", EmptyBody(),
                as: AccountEntries.self, what: "reading accounts", method: "GET"
            )
            for account in page.accounts {
                try archive.add(account)
                users.append(account.userRecordName)
            }
            offset += page.accounts.count
            if !page.moreComing || page.accounts.isEmpty { break }
        }
        output("accounts: \(users.count)")

        for environment in Environment.allCases {
            try await exportZone(ZoneID.defaultZoneName, of: nil, environment: environment, to: archive)
            await reporter.report(.running, done: archive.recordCount, total: nil, bytes: archive.fileBytes)
            for user in users {
                try await exportPrivate(of: user, environment: environment, to: archive)
                await reporter.report(.running, done: archive.recordCount, total: nil, bytes: archive.fileBytes)
            }
        }

        var subscriptionCount = 0
        for environment in Environment.allCases {
            for scope in [DatabaseScope.public, .private] {
                let listed = try await connection.send(
                    "GET", "/admin/1/\(container)/\(environment.rawValue)/subscriptions?database=\(scope.rawValue)", what: "reading subscriptions"
                )
                for entry in try JSONDecoder().decode(ListedSubscriptions.self, from: listed).subscriptions {
                    try archive.addSubscription(entry.subscription, of: entry.owner, environment: environment, database: scope)
                    subscriptionCount += 1
                }
            }
        }
        let manifest = try archive.finish()
        output("records: \(manifest.records) in \(manifest.zones) custom zones and the public databases; files: \(manifest.files) (\(ImportProgress.size(manifest.fileBytes)))")
        output("subscriptions: \(subscriptionCount)")
        return manifest
    }

    /// A user's private zones and their records.
    private func exportPrivate(of user: String, environment: Environment, to archive: ArchiveFolder) async throws {
        let database = OperatorConnection.databasePath(options.container, environment, .private)
        let listed = try await connection.post(database + "/zones/list", EmptyBody(), user: user, as: ListedZones.self, what: "listing \(user)'s zones")
        for zone in listed.zones.map(\.zoneID.zoneName) {
            if zone != ZoneID.defaultZoneName { try archive.addZone(zone, of: user, environment: environment) }
            try await exportZone(zone, of: user, environment: environment, to: archive)
        }
    }

    /// A zone's records, read whole through its change feed: a private zone of `user`, or the public database's.
    private func exportZone(_ zone: String, of user: String?, environment: Environment, to archive: ArchiveFolder) async throws {
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
            let archived = try await archived(record, zoneRecords: zoneRecords, in: archive)
            try archive.add(archived, environment: environment, database: scope, owner: user, zoneName: zone)
        }
    }

    /// A record as the archive keeps it: its files saved under `files/`, a share record with its share.
    private func archived(_ record: WireRecord, zoneRecords: [WireRecord], in archive: ArchiveFolder) async throws -> ImportedRecord {
        let fields = try await AssetValues.map(record.fields ?? [:]) { field, asset in
            guard case .string(let url)? = asset["downloadURL"] else {
                throw TransferError("field \(field) of \(record.recordName) holds a file without a downloadURL")
            }
            let answer = try await connection.backoff.run("downloading \(field) of \(record.recordName)") {
                try await HTTP.send("GET", url, headers: ["Authorization": "Bearer \(options.adminKey)"])
            }
            guard answer.status == 200 else { throw TransferError("downloading \(field) of \(record.recordName) failed: \(HTTP.describe(answer))") }
            return try archive.addFile(answer.body)
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
