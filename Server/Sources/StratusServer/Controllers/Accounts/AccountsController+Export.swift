import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore
import StratusArchive

/// A user downloading their data.
extension AccountsController {
    func registerExport(on group: RouterGroup<StratusRequestContext>) {
        group.get("account/export", use: exportAccount)
    }

    /// `GET account/export` (signed in): the user's data in this environment as a container archive
    /// (docs/import-export.md, a tar): their account (no password hash) and roles, the schemas, their private
    /// database (zones, records, asset files, and shares without their participants), the public records they
    /// created, and their subscriptions. It imports into another server with `stratus import archive`.
    @Sendable func exportAccount(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-export-\(UUID().uuidString)").path
        let tar = work + ".tar"
        do {
            try await UserArchive(store: server.store, blobs: server.blobs, account: account, environment: authentication.environment)
                .write(to: work)
            try ArchiveFiles.pack(work, into: tar)
            try? FileManager.default.removeItem(atPath: work)
        } catch {
            try? FileManager.default.removeItem(atPath: work)
            try? FileManager.default.removeItem(atPath: tar)
            throw error
        }
        guard let handle = FileHandle(forReadingAtPath: tar),
            let size = (try? FileManager.default.attributesOfItem(atPath: tar)[.size]) as? NSNumber
        else { throw APIError.internalError(StorageError(.internalFailure, "the archive could not be read back")) }
        // Unlinked now, the file lives until the handle closes, and nothing is left behind however the answer ends.
        try? FileManager.default.removeItem(atPath: tar)
        var headers = HTTPFields()
        headers[.contentType] = "application/x-tar"
        headers[.contentDisposition] = "attachment; filename=\"\(authentication.container.id)-\(authentication.environment.rawValue)-\(account.userRecordName).tar\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(contentLength: size.intValue) { writer in
            defer { try? handle.close() }
            while let chunk = try handle.read(upToCount: RequestLimits.downloadChunkBytes), !chunk.isEmpty {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        })
    }
}

/// One user's data in one environment, written as a container archive.
struct UserArchive {
    let store: any Store
    let blobs: any BlobStore
    let account: Account
    let environment: StratusModel.Environment

    func write(to path: String) async throws {
        let containerID = account.containerID
        let archive = try ArchiveFolder(path: path, container: containerID, includesSecrets: false)
        for environment in StratusModel.Environment.allCases {
            try archive.writeSchema(try await AdminOperations.schemaText(containerID: containerID, environment: environment, store: store), environment: environment)
        }
        let roles = try await store.roles(containerID: containerID, environment: environment, userRecordName: account.userRecordName)
        try archive.add(AccountEntry(
            userRecordName: account.userRecordName, emailAddress: account.emailAddress, phoneNumber: account.phoneNumber,
            givenName: account.givenName, familyName: account.familyName, discoverable: account.isDiscoverable, createdAt: account.createdAt,
            passwordHash: nil, roles: roles.isEmpty ? [:] : [environment.rawValue: roles.sorted()]
        ))

        let privateDatabase = DatabaseRef.privateDatabase(containerID, environment, owner: account.userRecordName)
        for zone in try await store.zones(in: privateDatabase).map(\.zoneID.zoneName) {
            if zone != ZoneID.defaultZoneName { try archive.addZone(zone, of: account.userRecordName, environment: environment) }
            var token: String?
            var more = true
            while more {
                let page = try await store.zoneChanges(ZoneChangesQuery(zone: privateDatabase.zone(zone), syncToken: token, limit: 200))
                for case .saved(let record) in page.changes {
                    try archive.add(try await archived(record, in: archive), environment: environment, database: .private, owner: account.userRecordName, zoneName: zone)
                }
                token = page.syncToken
                more = page.moreComing
            }
        }

        let publicZone = DatabaseRef.publicDatabase(containerID, environment).zone(ZoneID.defaultZoneName)
        var after: String?
        while true {
            let names = try await store.publicRecordNames(
                createdBy: account.userRecordName, containerID: containerID, environment: environment, after: after, limit: 200
            )
            guard let last = names.last else { break }
            let records = try await store.lookupRecords(names, in: publicZone)
            for name in names {
                guard let record = records[name] else { continue }
                try archive.add(try await archived(record, in: archive), environment: environment, database: .public, owner: nil, zoneName: ZoneID.defaultZoneName)
            }
            after = last
        }

        for scope in [DatabaseScope.public, .private] {
            for subscription in try await store.subscriptions(containerID: containerID, environment: environment, scope: scope)
            where subscription.owner == account.userRecordName {
                let body = (try? JSONDecoder().decode(JSONValue.self, from: Data(subscription.body.utf8))) ?? .null
                try archive.addSubscription(body, of: account.userRecordName, environment: environment, database: scope)
            }
        }
        try archive.finish()
    }

    /// A record as the archive keeps it: its fields as the API writes them, its files in the archive, a share
    /// record with its root and public permission.
    private func archived(_ record: Record, in archive: ArchiveFolder) async throws -> ImportedRecord {
        var writer = JSONWriter()
        record.write(to: &writer, rendering: RecordRendering())
        struct Rendered: Decodable { var fields: [String: FieldInput]? }
        let rendered = try JSONDecoder().decode(Rendered.self, from: Data(writer.text.utf8))
        // The rendered values carry no asset IDs: the stored ones do, in the same order.
        let stored = try record.fields.decode()
        var positions: [String: Int] = [:]
        let fields = try await AssetValues.map(rendered.fields ?? [:]) { field, asset in
            let position = positions[field, default: 0]
            positions[field] = position + 1
            let assets = stored[field]?.assets ?? []
            guard position < assets.count, let id = assets[position].assetID else { return .object(asset) }
            var data = Data()
            for try await chunk in try await blobs.read(key: id, range: nil) { data.append(contentsOf: chunk) }
            return try archive.addFile(data)
        }
        // A share keeps what it shares and how, not its participants: who they are is theirs to tell.
        let share = record.shareDetails.map { details in
            ImportedShare(rootRecordName: details.rootRecordName, publicPermission: details.publicPermission, participants: [])
        }
        return ImportedRecord(
            recordName: record.recordName, recordType: record.recordType, fields: fields, created: record.created, modified: record.modified,
            parent: record.parent, shortGUID: record.shortGUID, share: share
        )
    }
}
