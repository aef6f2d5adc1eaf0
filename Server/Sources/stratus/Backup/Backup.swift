import ArgumentParser
import Foundation
import StratusSQLite
import StratusStore
import StratusTransfer

/// `stratus backup`: a consistent snapshot of a data folder while its server goes on serving.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back up a data folder (its SQLite database and asset files) into one archive, while its server runs.",
        discussion: """
            The database is copied in one read transaction (SQLite's VACUUM INTO), so writers are never blocked and \
            every write acknowledged before the backup began is in it. Asset files are copied after it; assets kept \
            in S3 are not in the archive (back up the bucket, or turn on its versioning). Bring a backup back with \
            stratus restore. For PostgreSQL, see docs/backups.md (pg_dump, point-in-time recovery).

              stratus backup --data ./stratus-data --out stratus-2026-11-24.tar
            """
    )

    @Option(help: "The data folder to back up (STRATUS_DATA).")
    var data: String?

    @Option(help: "The archive to write; it must not exist.")
    var out: String

    func run() async throws {
        let folder = DataFolder.named(data)
        guard FileManager.default.fileExists(atPath: folder.databasePath) else {
            throw CommandFailure("\(folder.path) holds no Stratus data (no stratus.sqlite)")
        }
        guard !FileManager.default.fileExists(atPath: out) else { throw CommandFailure("\(out) exists already") }
        let started = Date()
        let work = out + ".partial-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: work) }

        let takenAt = ISO8601DateFormatter().string(from: Date())
        let snapshot = try Self.storageFailure { try SQLiteSnapshot.write(from: folder.databasePath, to: work + "/" + BackupManifest.databaseName) }
        say("Copied the database: \(snapshot.rows["records"] ?? 0) records, \(Self.megabytes(snapshot.bytes)).")

        let blobs = try Self.assetFiles(in: folder.path + "/assets/blobs")
        let referenced = try Self.storageFailure { try SQLiteSnapshot.storedAssetIDs(in: work + "/" + BackupManifest.databaseName) }
        let archived = Set(blobs.map(\.id))
        let missing = referenced.subtracting(archived)
        if !blobs.isEmpty, !missing.isEmpty {
            throw CommandFailure("\(missing.count) asset files the database copy refers to were collected while the backup ran; run it again")
        }
        let assetBytes = blobs.reduce(Int64(0)) { $0 + $1.size }
        let manifest = BackupManifest(
            takenAt: takenAt, migrations: snapshot.migrations, rows: snapshot.rows, databaseBytes: snapshot.bytes,
            assetFiles: blobs.count, assetBytes: assetBytes
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
        if blobs.isEmpty, !referenced.isEmpty {
            say("Note: the database refers to \(referenced.count) asset files that are not in the data folder (S3 storage?); they are not in the archive.")
        }
        let seconds = Date().timeIntervalSince(started)
        say("Wrote \(out): the database and \(blobs.count) asset files (\(Self.megabytes(assetBytes))) in \(String(format: "%.1f", seconds)) s.")
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

    private func say(_ line: String) {
        print(line)
    }
}
