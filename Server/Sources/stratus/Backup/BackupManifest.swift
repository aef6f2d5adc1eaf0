import Foundation

/// `backup.json`, the first entry of a backup archive: what it holds, so that a restore can check it.
///
/// A backup archive is a tar file: `backup.json`, then `stratus.sqlite` (a consistent copy of the data folder's
/// database), `admin.key` when the folder has one, and each asset file as `assets/blobs/<folder>/<id>`.
struct BackupManifest: Codable {
    static let fileName = "backup.json"
    static let databaseName = "stratus.sqlite"
    static let currentFormat = 1

    var format = BackupManifest.currentFormat
    /// When the database copy began (ISO 8601).
    var takenAt: String
    /// The migrations applied to the copied database, the last one naming its format.
    var migrations: [String]
    /// Rows per table of the copied database.
    var rows: [String: Int]
    var databaseBytes: Int64
    var assetFiles: Int
    var assetBytes: Int64
}
