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
        let started = Date()
        let summary = try BackupArchive.write(DataFolder.named(data), to: out) { print($0) }
        if summary.assetsElsewhere > 0 {
            print("Note: the database refers to \(summary.assetsElsewhere) asset files that are not in the data folder (S3 storage?); they are not in the archive.")
        }
        let seconds = Date().timeIntervalSince(started)
        let manifest = summary.manifest
        print("Wrote \(out): the database and \(manifest.assetFiles) asset files (\(BackupArchive.megabytes(manifest.assetBytes))) in \(String(format: "%.1f", seconds)) s.")
    }
}
