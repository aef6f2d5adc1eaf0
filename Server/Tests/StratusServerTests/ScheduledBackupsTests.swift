import Foundation
import Logging
import StratusServices
import StratusStore
import StratusTestSupport
import Synchronization
import Testing

/// Scheduled backups on a clock the test moves, into a bucket kept in memory.
@Suite struct ScheduledBackupsTests {
    /// A bucket in memory.
    final class MemoryBucket: BackupBucket {
        let objectsByKey = Mutex<[String: [UInt8]]>([:])
        let failsToList = Mutex(false)

        func objects() async throws -> [(key: String, size: Int64)] {
            if failsToList.withLock({ $0 }) { throw ServiceError(.unavailable, "the bucket is down") }
            return objectsByKey.withLock { $0.map { ($0.key, Int64($0.value.count)) } }
        }

        func beginUpload(key: String) async throws -> any BlobUpload { Upload(bucket: self, key: key) }
        func delete(key: String) async throws { _ = objectsByKey.withLock { $0.removeValue(forKey: key) } }
        func createBucketIfNeeded() async throws {}
        func shutdown() async throws {}

        var names: [String] { objectsByKey.withLock { $0.keys.sorted() } }

        final class Upload: BlobUpload {
            let bucket: MemoryBucket
            let key: String
            let parts = Mutex<[UInt8]>([])

            init(bucket: MemoryBucket, key: String) {
                self.bucket = bucket
                self.key = key
            }

            func append(_ bytes: [UInt8]) async throws { parts.withLock { $0 += bytes } }
            func commit() async throws { bucket.objectsByKey.withLock { $0[key] = parts.withLock { $0 } } }
            func abort() async {}
        }
    }

    /// Time as the test sets it.
    final class Clock: Sendable {
        private let time: Mutex<Int64>
        init(_ start: Int64) { time = Mutex(start) }
        func now() -> Int64 { time.withLock { $0 } }
        func advance(_ milliseconds: Int64) { time.withLock { $0 += milliseconds } }
    }

    static let minute: Int64 = 60_000
    static let start: Int64 = 1_800_000_000_000

    func backups(_ bucket: MemoryBucket, clock: Clock, keep: Int = 2, archive: @escaping @Sendable (String) throws -> BackupArchiveSummary) throws -> (ScheduledBackups, TestFolder) {
        let folder = try TestFolder("stratus-scheduled-backups")
        let backups = ScheduledBackups(
            bucket: bucket, destination: "s3://backups/", intervalSeconds: 600, keep: keep, workFolder: folder.path + "/work",
            writeArchive: archive, now: clock.now, logger: Logger(label: "test")
        )
        return (backups, folder)
    }

    static func archive(_ file: String) throws -> BackupArchiveSummary {
        try Data("archive".utf8).write(to: URL(fileURLWithPath: file))
        return BackupArchiveSummary(records: 3, assetsElsewhere: 0)
    }

    @Test("the first backup is due an interval after the newest in the bucket; each is named by its time; the oldest past keep are deleted")
    func followsTheBucket() async throws {
        let bucket = MemoryBucket()
        let clock = Clock(Self.start)
        // A backup made five minutes ago, before a restart: the next is due five minutes from now, not at once.
        bucket.objectsByKey.withLock { $0[ScheduledBackups.name(at: Self.start - 5 * Self.minute)] = [1] }
        let (backups, folder) = try backups(bucket, clock: clock, archive: Self.archive)
        defer { folder.remove() }

        await backups.backUpIfDue()
        #expect(bucket.names.count == 1 && backups.latestRun() == nil, "\(bucket.names)")
        clock.advance(5 * Self.minute)
        await backups.backUpIfDue()
        let first = ScheduledBackups.name(at: Self.start + 5 * Self.minute)
        #expect(bucket.names.contains(first), "\(bucket.names)")
        let run = try #require(backups.latestRun())
        #expect(run.state == .finished && run.name == first && run.bytes == 7 && run.records == 3, "\(run)")
        #expect(ScheduledBackups.takenAt(name: first) == Self.start + 5 * Self.minute)

        // Ten minutes later the next, and the oldest beyond two is deleted; the work folder is gone each time.
        clock.advance(10 * Self.minute)
        await backups.backUpIfDue()
        #expect(bucket.names == [first, ScheduledBackups.name(at: Self.start + 15 * Self.minute)] as [String], "\(bucket.names)")
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/work"))
        #expect(try await backups.backups().map(\.name) == Array(bucket.names.reversed()))
    }

    @Test("a backup asked for runs at the next tick, once; a failed one says why and the next is tried at its time")
    func startNowAndFailures() async throws {
        let bucket = MemoryBucket()
        let clock = Clock(Self.start)
        let failing = Mutex(false)
        let (backups, folder) = try backups(bucket, clock: clock) { file in
            if failing.withLock({ $0 }) { throw ServiceError(.failed, "the database copy failed") }
            return try Self.archive(file)
        }
        defer { folder.remove() }

        await backups.backUpIfDue()
        #expect(bucket.names.isEmpty, "an empty bucket: the first is due an interval from now")
        #expect(backups.startNow())
        #expect(!backups.startNow(), "one is asked for already")
        #expect(backups.latestRun()?.state == .running)
        await backups.backUpIfDue()
        #expect(bucket.names == [ScheduledBackups.name(at: Self.start)])

        failing.withLock { $0 = true }
        clock.advance(10 * Self.minute)
        await backups.backUpIfDue()
        let failed = try #require(backups.latestRun())
        #expect(failed.state == .failed && failed.message?.contains("the database copy failed") == true, "\(failed)")
        clock.advance(Self.minute)
        failing.withLock { $0 = false }
        await backups.backUpIfDue()
        #expect(backups.latestRun()?.state == .failed, "not tried again before its time")
        clock.advance(9 * Self.minute)
        await backups.backUpIfDue()
        #expect(backups.latestRun()?.state == .finished && bucket.names.count == 2, "\(bucket.names)")
    }

    @Test("a bucket that cannot be read makes the first backup due within a minute")
    func unreadableBucket() async throws {
        let bucket = MemoryBucket()
        bucket.failsToList.withLock { $0 = true }
        let clock = Clock(Self.start)
        let (backups, folder) = try backups(bucket, clock: clock, archive: Self.archive)
        defer { folder.remove() }
        await backups.backUpIfDue()
        bucket.failsToList.withLock { $0 = false }
        clock.advance(Self.minute)
        await backups.backUpIfDue()
        #expect(bucket.names == [ScheduledBackups.name(at: Self.start + Self.minute)], "\(bucket.names)")
    }
}
