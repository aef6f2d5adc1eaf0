import StratusServices
import StratusArchive
import ArgumentParser
import Foundation
import StratusBlobs
import StratusSQLite
import StratusStore
import StratusTransfer

/// `stratus restore`: a backup archive back into a data folder, checked before anything is replaced.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a backup archive (stratus backup, or a scheduled backup in a bucket) back into a data folder.",
        discussion: """
            The archive is unpacked beside the folder's files and checked (SQLite's integrity check, every table's \
            row count and the asset files against the archive's manifest) before it replaces anything. Stop the \
            server on the folder first. A scheduled backup is read straight from its bucket: s3://BUCKET/PREFIX/NAME, \
            or s3://BUCKET/PREFIX/latest for the newest, through the S3 service the options (or the serve settings' \
            variables) name.

              stratus restore stratus-2026-11-24.tar --data ./stratus-data
              stratus restore s3://my-backups/stratus-backups/latest --data ./stratus-data --s3-endpoint https://s3.example.com
            """
    )

    @Argument(help: "The archive stratus backup wrote, or s3://BUCKET/PREFIX/NAME (or .../latest) for a scheduled backup.")
    var archive: String

    @Option(help: "The S3 service of a backup in a bucket (STRATUS_BACKUP_S3_ENDPOINT, else STRATUS_S3_ENDPOINT).")
    var s3Endpoint: String?

    @Option(help: "Its region (STRATUS_BACKUP_S3_REGION, else STRATUS_S3_REGION).")
    var s3Region: String?

    @Option(help: "Its access key (STRATUS_BACKUP_S3_ACCESS_KEY, else STRATUS_S3_ACCESS_KEY).")
    var s3AccessKey: String?

    @Option(help: "Its secret key (STRATUS_BACKUP_S3_SECRET_KEY, else STRATUS_S3_SECRET_KEY).")
    var s3SecretKey: String?

    @Option(help: "The data folder to restore into (STRATUS_DATA); created if missing.")
    var data: String?

    @Flag(help: "Replace the database and asset files the folder holds.")
    var force = false

    func run() async throws {
        let folder = DataFolder.named(data)
        if let running = await RunningServer.find(in: folder) {
            throw CommandFailure("a server runs on \(folder.path) (process \(running.pid), \(running.url)); stop it first")
        }
        if FileManager.default.fileExists(atPath: folder.databasePath), !force {
            throw CommandFailure("\(folder.path) holds a database already; restore with --force to replace it")
        }
        try folder.prepare()
        let staging = folder.path + "/.restoring-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: staging) }

        var file = archive
        if archive.hasPrefix("s3://") {
            file = staging + "/downloaded.tar"
            let name = try await download(archive, to: file)
            print("Downloaded \(name) from the bucket.")
        }
        let manifest = try Self.unpack(file, into: staging)
        let summary = try BackupArchive.storageFailure { try SQLiteSnapshot.verify(staging + "/" + BackupManifest.databaseName) }
        guard summary.rows == manifest.rows, summary.migrations == manifest.migrations else {
            throw CommandFailure("the archive's database does not match its manifest; it is damaged")
        }
        let assets = try BackupArchive.assetFiles(in: staging + "/assets/blobs")
        guard assets.count == manifest.assetFiles, assets.reduce(0, { $0 + $1.size }) == manifest.assetBytes else {
            throw CommandFailure("the archive holds \(assets.count) asset files, its manifest \(manifest.assetFiles); it is damaged")
        }

        // Checked: the folder's files give way. The old database's journal files go with it.
        let files = FileManager.default
        for suffix in ["", "-wal", "-shm"] { try? files.removeItem(atPath: folder.databasePath + suffix) }
        try files.moveItem(atPath: staging + "/" + BackupManifest.databaseName, toPath: folder.databasePath)
        for (entry, path) in [("admin.key", folder.adminKeyPath), ("secrets.key", folder.secretsKeyPath)] where files.fileExists(atPath: staging + "/" + entry) {
            try? files.removeItem(atPath: path)
            try files.moveItem(atPath: staging + "/" + entry, toPath: path)
        }
        if files.fileExists(atPath: staging + "/assets/blobs") {
            try files.createDirectory(atPath: folder.path + "/assets", withIntermediateDirectories: true)
            try? files.removeItem(atPath: folder.path + "/assets/blobs")
            try files.moveItem(atPath: staging + "/assets/blobs", toPath: folder.path + "/assets/blobs")
        }
        print("Restored the backup of \(manifest.takenAt) into \(folder.path): \(manifest.rows["records"] ?? 0) records, \(assets.count) asset files; checked.")
    }

    /// Downloads `s3://BUCKET/PREFIX/NAME` (`latest`: the newest scheduled backup under the prefix) to `file`;
    /// answers the backup's name.
    private func download(_ location: String, to file: String) async throws -> String {
        let path = location.dropFirst("s3://".count)
        guard let slash = path.firstIndex(of: "/"), let last = path.lastIndex(of: "/"), slash > path.startIndex, path.index(after: last) < path.endIndex else {
            throw CommandFailure("\(location) is not s3://BUCKET/PREFIX/NAME")
        }
        let bucketName = String(path[..<slash])
        // What lies between the bucket and the name, its last slash included (`stratus-backups/`), or nothing.
        let prefix = last > slash ? String(path[path.index(after: slash)...last]) : ""
        var name = String(path[path.index(after: last)...])
        func setting(_ flag: String?, _ name: String) -> String? {
            flag ?? environmentValue("STRATUS_BACKUP_S3_\(name)") ?? environmentValue("STRATUS_S3_\(name)")
        }
        guard let endpoint = setting(s3Endpoint, "ENDPOINT"), let accessKey = setting(s3AccessKey, "ACCESS_KEY"), let secretKey = setting(s3SecretKey, "SECRET_KEY") else {
            throw CommandFailure("a backup in a bucket needs its S3 service: --s3-endpoint, --s3-access-key and --s3-secret-key")
        }
        let bucket: S3BlobStore
        do {
            bucket = try S3BlobStore(configuration: S3Configuration(
                endpoint: endpoint, region: setting(s3Region, "REGION") ?? "us-east-1", bucket: bucketName, accessKey: accessKey, secretKey: secretKey, keyPrefix: prefix
            ))
        } catch let error as StorageError {
            throw CommandFailure(error.message)
        }
        do {
            if name == "latest" {
                guard let newest = try await bucket.keys().filter({ ScheduledBackups.takenAt(name: $0) != nil }).max() else {
                    throw CommandFailure("s3://\(bucketName)/\(prefix) holds no backups")
                }
                name = newest
            }
            guard FileManager.default.createFile(atPath: file, contents: nil), let handle = FileHandle(forWritingAtPath: file) else {
                throw CommandFailure("cannot write \(file)")
            }
            defer { try? handle.close() }
            for try await chunk in try await bucket.read(key: name, range: nil) {
                try handle.write(contentsOf: chunk)
            }
            try? await bucket.shutdown()
            return name
        } catch let error as StorageError {
            try? await bucket.shutdown()
            throw CommandFailure("reading \(location): \(error.message)")
        } catch {
            try? await bucket.shutdown()
            throw error
        }
    }

    /// Unpacks the archive's files into `folder` and answers its manifest.
    static func unpack(_ archive: String, into folder: String) throws -> BackupManifest {
        let reader = try TarReader(path: archive)
        defer { reader.close() }
        guard let first = try reader.next(), first.name == BackupManifest.fileName else {
            throw CommandFailure("\(archive) is not a Stratus backup (it does not start with \(BackupManifest.fileName))")
        }
        let manifest: BackupManifest
        do {
            manifest = try JSONDecoder().decode(BackupManifest.self, from: try reader.read(first))
        } catch let error as DecodingError {
            throw CommandFailure("\(archive) has an unreadable manifest: \(error)")
        }
        guard manifest.format <= BackupManifest.currentFormat else {
            throw CommandFailure("\(archive) was written by a newer Stratus (format \(manifest.format)); restore it with that version")
        }
        while let entry = try reader.next() {
            guard Self.isExpected(entry.name) else { throw CommandFailure("\(archive) holds an unexpected entry: \(entry.name)") }
            let target = folder + "/" + entry.name
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try reader.copy(entry, to: target)
        }
        return manifest
    }

    /// The entries a backup holds; nothing else is unpacked (no absolute paths, no `..`).
    static func isExpected(_ name: String) -> Bool {
        if name == BackupManifest.databaseName || name == "admin.key" || name == "secrets.key" { return true }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return name.hasPrefix("assets/blobs/") && !parts.contains("..") && !parts.contains("") && !parts.contains(".")
    }
}
