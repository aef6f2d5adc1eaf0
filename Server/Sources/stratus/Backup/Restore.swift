import ArgumentParser
import Foundation
import StratusSQLite
import StratusTransfer

/// `stratus restore`: a backup archive back into a data folder, checked before anything is replaced.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring a backup archive (stratus backup) back into a data folder.",
        discussion: """
            The archive is unpacked beside the folder's files and checked (SQLite's integrity check, every table's \
            row count and the asset files against the archive's manifest) before it replaces anything. Stop the \
            server on the folder first.

              stratus restore stratus-2026-11-24.tar --data ./stratus-data
            """
    )

    @Argument(help: "The archive stratus backup wrote.")
    var archive: String

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

        let manifest = try Self.unpack(archive, into: staging)
        let summary = try Backup.storageFailure { try SQLiteSnapshot.verify(staging + "/" + BackupManifest.databaseName) }
        guard summary.rows == manifest.rows, summary.migrations == manifest.migrations else {
            throw CommandFailure("the archive's database does not match its manifest; it is damaged")
        }
        let assets = try Backup.assetFiles(in: staging + "/assets/blobs")
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
