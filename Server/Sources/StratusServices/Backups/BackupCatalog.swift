/// Backups of the server's data to a bucket, made on a schedule by the process that serves: the `stratus` command
/// gives one to ``buildApplication(configuration:store:blobs:services:backups:logger:onServerRunning:)`` when backups
/// are set up. The admin API lists them and starts one (docs/backups.md#backups-to-a-bucket).
public protocol BackupCatalog: Sendable {
    /// Where backups go and how often.
    var schedule: BackupSchedule { get }
    /// The backups in the bucket, newest first.
    func backups() async throws -> [StoredBackup]
    /// How the latest run went (or goes); `nil` before the first.
    func latestRun() -> BackupRun?
    /// Starts a backup now, unless one runs; answers whether it started.
    func startNow() -> Bool
}

/// Where backups go and how often.
public struct BackupSchedule: Sendable, Encodable {
    /// `s3://bucket/prefix`.
    public var destination: String
    public var intervalSeconds: Int
    /// How many backups are kept; older ones are deleted after each new one.
    public var keep: Int

    public init(destination: String, intervalSeconds: Int, keep: Int) {
        self.destination = destination
        self.intervalSeconds = intervalSeconds
        self.keep = keep
    }
}

/// One backup in the bucket.
public struct StoredBackup: Sendable, Encodable, Equatable {
    /// Its object's name under the prefix, such as `backup-20261127T204319Z`.
    public var name: String
    public var bytes: Int64
    /// When its database copy began, in milliseconds since 1970.
    public var takenAt: Int64

    public init(name: String, bytes: Int64, takenAt: Int64) {
        self.name = name
        self.bytes = bytes
        self.takenAt = takenAt
    }
}

/// A run of the schedule.
public struct BackupRun: Sendable, Encodable {
    public enum State: String, Sendable, Encodable {
        case running, finished, failed
    }

    public var state: State
    /// Milliseconds since 1970.
    public var startedAt: Int64
    public var finishedAt: Int64?
    /// The backup it made.
    public var name: String?
    public var bytes: Int64?
    public var records: Int?
    /// Why it failed.
    public var message: String?

    public init(state: State, startedAt: Int64, finishedAt: Int64? = nil, name: String? = nil, bytes: Int64? = nil, records: Int? = nil, message: String? = nil) {
        self.state = state
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.name = name
        self.bytes = bytes
        self.records = records
        self.message = message
    }
}
