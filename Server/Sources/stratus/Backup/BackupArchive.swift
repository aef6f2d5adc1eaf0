import StratusArchive
import StratusServices
import StratusBlobs
import Foundation
import StratusSQLite
import StratusStore
import StratusTransfer

/// A backup archive of a data folder, written while its server serves: `stratus backup` writes one to a file,
/// scheduled backups (``ScheduledBackups``) to a bucket. The format is ``BackupManifest``'s.
enum BackupArchive {
    /// What writing an archive did.
    struct Summary {
        var manifest: BackupManifest
        /// The database refers to asset files the folder does not hold (they are in S3, not in the archive).
        var assetsElsewhere: Int
    }

    /// Writes an archive of `folder` to `out` (which must not exist), through a partial file renamed at the end.
    /// - Parameter say: receives a line on the database's copy.
    /// - Throws: ``CommandFailure`` naming what went wrong.
    static func write(_ folder: DataFolder, to out: String, say: (String) -> Void = { _ in }) throws -> Summary {
        guard FileManager.default.fileExists(atPath: folder.databasePath) else {
            throw CommandFailure("\(folder.path) holds no Stratus data (no stratus.sqlite)")
        }
        guard !FileManager.default.fileExists(atPath: out) else { throw CommandFailure("\(out) exists already") }
        let work = out + ".partial-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: work) }

        let takenAt = ISO8601DateFormatter().string(from: Date())
        let snapshot = try storageFailure { try SQLiteSnapshot.write(from: folder.databasePath, to: work + "/" + BackupManifest.databaseName) }
        say("Copied the database: \(snapshot.rows["records"] ?? 0) records, \(megabytes(snapshot.bytes)).")

        let blobs = try assetFiles(in: folder.path + "/assets/blobs")
        let referenced = try storageFailure { try SQLiteSnapshot.storedAssetIDs(in: work + "/" + BackupManifest.databaseName) }
        let missing = referenced.subtracting(Set(blobs.map(\.id)))
        if !blobs.isEmpty, !missing.isEmpty {
            throw CommandFailure("\(missing.count) asset files the database copy refers to were collected while the backup ran; run it again")
        }
        let manifest = BackupManifest(
            takenAt: takenAt, migrations: snapshot.migrations, rows: snapshot.rows, databaseBytes: snapshot.bytes,
            assetFiles: blobs.count, assetBytes: blobs.reduce(Int64(0)) { $0 + $1.size }
        )
        let partial = work + "/archive.tar"
        let writer = try TarWriter(path: partial)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try writer.add(try encoder.encode(manifest), as: BackupManifest.fileName)
        try writer.addFile(at: work + "/" + BackupManifest.databaseName, as: BackupManifest.databaseName)
        if FileManager.default.fileExists(atPath: folder.adminKeyPath) {
            try writer.addFile(at: folder.adminKeyPath, as: "admin.key")
        }
        // The secrets key opens the containers' secrets the database holds sealed: without it they are lost.
        if FileManager.default.fileExists(atPath: folder.secretsKeyPath) {
            try writer.addFile(at: folder.secretsKeyPath, as: "secrets.key")
        }
        for blob in blobs {
            try writer.addFile(at: blob.path, as: blob.name)
        }
        try writer.finish()
        guard rename(partial, out) == 0 else { throw CommandFailure("cannot move the archive to \(out)") }
        return Summary(manifest: manifest, assetsElsewhere: blobs.isEmpty ? referenced.count : 0)
    }

    /// Writes an archive of `folder` to `file` for a scheduled backup (``ScheduledBackups``), and says what it holds.
    static func summary(of folder: DataFolder, writtenTo file: String) throws -> BackupArchiveSummary {
        let summary = try write(folder, to: file)
        return BackupArchiveSummary(records: summary.manifest.rows["records"], assetsElsewhere: summary.assetsElsewhere)
    }

    /// An asset file of the folder store: its blob ID, where it is, and its name in the archive.
    struct AssetFile {
        var id: String
        var path: String
        var name: String
        var size: Int64
    }

    /// Every committed asset file under `assets/blobs` (uploads in progress are left out).
    static func assetFiles(in root: String) throws -> [AssetFile] {
        guard let walker = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [AssetFile] = []
        while let relative = walker.nextObject() as? String {
            let path = root + "/" + relative
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular else {
                continue
            }
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
            files.append(AssetFile(id: (relative as NSString).lastPathComponent, path: path, name: "assets/blobs/" + relative, size: size))
        }
        return files.sorted { $0.name < $1.name }
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    /// Runs `body`, turning a store error into a message for the command line.
    static func storageFailure<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            throw CommandFailure(error.message)
        }
    }
}

/// Scheduled backups keep their archives in S3.
extension S3BlobStore: BackupBucket {}
