import Foundation
import Logging
import ServiceLifecycle
import StratusStore
import Synchronization

/// Where scheduled backups are kept: an S3 bucket (the `stratus` command gives its `S3BlobStore`).
package protocol BackupBucket: Sendable {
    /// Every object's key and size.
    func objects() async throws -> [(key: String, size: Int64)]
    func beginUpload(key: String) async throws -> any BlobUpload
    func delete(key: String) async throws
    /// Makes the bucket when it does not exist.
    func createBucketIfNeeded() async throws
    /// Closes its connections.
    func shutdown() async throws
}

/// What writing one backup archive did, as the backup's run reports it.
package struct BackupArchiveSummary: Sendable {
    /// The records the archive's database copy holds.
    package var records: Int?
    /// The database refers to asset files the data folder does not hold (they are in S3, not in the archive).
    package var assetsElsewhere: Int

    package init(records: Int?, assetsElsewhere: Int) {
        self.records = records
        self.assetsElsewhere = assetsElsewhere
    }
}

/// Backups to a bucket, made on a schedule by the server that serves the data (`--backup-bucket`): an archive as
/// `stratus backup` writes it (``writeArchive``), uploaded as `backup-<time>`, after which the backups past the newest
/// ``BackupSchedule/keep`` are deleted. The schedule follows the bucket: the next backup is due an interval after the
/// newest one there, so a restart does not make one at once. See docs/backups.md#backups-to-a-bucket.
package final class ScheduledBackups: BackupCatalog, Service {
    package let schedule: BackupSchedule
    private let bucket: any BackupBucket
    /// Where archives are written before they are uploaded (removed after each).
    private let workFolder: String
    /// Writes an archive of the data to the file named, which does not exist yet.
    private let writeArchive: @Sendable (String) throws -> BackupArchiveSummary
    private let now: @Sendable () -> Int64
    private let logger: Logger
    private struct State {
        var latest: BackupRun?
        /// A backup was asked for (``startNow()``).
        var wanted = false
        /// When the next one is due, in milliseconds since 1970; `nil` until the bucket was read.
        var due: Int64?
    }
    private let state = Mutex(State())

    /// Names start with this; the rest is the time their database copy began.
    package static let namePrefix = "backup-"

    package init(
        bucket: any BackupBucket, destination: String, intervalSeconds: Int, keep: Int, workFolder: String,
        writeArchive: @escaping @Sendable (String) throws -> BackupArchiveSummary, now: @escaping @Sendable () -> Int64 = ServerClock.now,
        logger: Logger
    ) {
        self.bucket = bucket
        self.workFolder = workFolder
        self.writeArchive = writeArchive
        self.now = now
        self.logger = logger
        schedule = BackupSchedule(destination: destination, intervalSeconds: intervalSeconds, keep: keep)
    }

    package func backups() async throws -> [StoredBackup] {
        try await bucket.objects().compactMap { object in
            Self.takenAt(name: object.key).map { StoredBackup(name: object.key, bytes: object.size, takenAt: $0) }
        }.sorted { $0.name > $1.name }
    }

    package func latestRun() -> BackupRun? {
        state.withLock { $0.latest }
    }

    package func startNow() -> Bool {
        let now = now()
        return state.withLock { state in
            guard state.latest?.state != .running, !state.wanted else { return false }
            state.wanted = true
            state.latest = BackupRun(state: .running, startedAt: now)
            return true
        }
    }

    package func run() async throws {
        try? await bucket.createBucketIfNeeded()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                await self.backUpIfDue()
                do {
                    try await Task.sleep(for: .milliseconds(250))
                } catch {
                    return
                }
            }
        }
        try? await bucket.shutdown()
    }

    /// Makes a backup when one was asked for or is due by the clock: what the schedule does four times a second.
    package func backUpIfDue() async {
        if await isDue() { await makeBackup() }
    }

    /// Whether a backup was asked for or is due; reads the bucket for the first due time. A bucket that cannot be
    /// read makes the first one due within a minute, when its failure shows in the latest run.
    private func isDue() async -> Bool {
        let now = now()
        if state.withLock({ $0.due == nil }) {
            let interval = Int64(schedule.intervalSeconds) * 1000
            do {
                let newest = try await backups().first?.takenAt
                state.withLock { $0.due = (newest ?? now) + interval }
            } catch {
                logger.warning("the backup bucket cannot be read", metadata: ["stratus.error": "\(error)"])
                state.withLock { $0.due = now + min(interval, 60_000) }
            }
        }
        return state.withLock { $0.wanted || now >= $0.due ?? .max }
    }

    /// Writes an archive, uploads it, deletes the oldest past ``BackupSchedule/keep``; notes how it went.
    private func makeBackup() async {
        let started = now()
        state.withLock { state in
            state.wanted = false
            state.due = started + Int64(schedule.intervalSeconds) * 1000
            state.latest = BackupRun(state: .running, startedAt: started)
        }
        let name = Self.name(at: started)
        let file = workFolder + "/" + name + ".tar"
        defer { try? FileManager.default.removeItem(atPath: workFolder) }
        do {
            try FileManager.default.createDirectory(atPath: workFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // Copying the database and the files is blocking work: off the server's threads.
            let write = writeArchive
            let summary = try await Self.offThreads { try write(file) }
            let bytes = try await upload(file, as: name)
            let removed = try await removeOld()
            let message = summary.assetsElsewhere > 0 ? "asset files are kept in S3, not in the backup" : nil
            let finished = now()
            state.withLock {
                $0.latest = BackupRun(
                    state: .finished, startedAt: started, finishedAt: finished, name: name, bytes: bytes, records: summary.records, message: message
                )
            }
            logger.info("backed up the data folder", metadata: ["stratus.backup": "\(name)", "stratus.bytes": "\(bytes)", "stratus.removed": "\(removed)"])
        } catch {
            let reason = String(describing: error)
            let finished = now()
            state.withLock { $0.latest = BackupRun(state: .failed, startedAt: started, finishedAt: finished, message: reason) }
            logger.error("the backup failed; the next is tried at its time", metadata: ["stratus.error": "\(reason)"])
        }
    }

    /// Sends the archive a part at a time; answers its size.
    private func upload(_ file: String, as name: String) async throws -> Int64 {
        guard let handle = FileHandle(forReadingAtPath: file) else { throw ServiceError(.failed, "cannot read \(file)") }
        defer { try? handle.close() }
        let upload = try await bucket.beginUpload(key: name)
        var bytes: Int64 = 0
        do {
            while let chunk = try handle.read(upToCount: 4 * 1024 * 1024), !chunk.isEmpty {
                try await upload.append(Array(chunk))
                bytes += Int64(chunk.count)
            }
            try await upload.commit()
        } catch {
            await upload.abort()
            throw error
        }
        return bytes
    }

    /// Deletes the backups past the newest ``BackupSchedule/keep``; answers how many.
    private func removeOld() async throws -> Int {
        let old = try await backups().dropFirst(max(1, schedule.keep))
        for backup in old { try await bucket.delete(key: backup.name) }
        return old.count
    }

    /// `backup-2026-11-27T20-43-19-123Z` for that time (milliseconds since 1970): sorted by name, sorted by time.
    package static func name(at milliseconds: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        return namePrefix + String(
            format: "%04d-%02d-%02dT%02d-%02d-%02d-%03dZ", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0,
            Int(milliseconds % 1000)
        )
    }

    /// The time a backup's name gives, or `nil` for another object.
    package static func takenAt(name: String) -> Int64? {
        guard name.hasPrefix(namePrefix), name.hasSuffix("Z") else { return nil }
        let numbers = name.dropFirst(namePrefix.count).dropLast().split(whereSeparator: { $0 == "-" || $0 == "T" }).compactMap { Int($0) }
        guard numbers.count == 7 else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: numbers[0], month: numbers[1], day: numbers[2], hour: numbers[3], minute: numbers[4], second: numbers[5])
        guard let date = calendar.date(from: components) else { return nil }
        return Int64(date.timeIntervalSince1970) * 1000 + Int64(numbers[6])
    }

    /// Runs blocking work on a thread of its own.
    private static func offThreads<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result(catching: work)) }
        }
    }
}
