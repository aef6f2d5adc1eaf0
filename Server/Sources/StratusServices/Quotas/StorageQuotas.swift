import StratusModel
import StratusStore
import Synchronization

/// Refuses saves and uploads into a database whose storage is at its quota (`413 QUOTA_EXCEEDED`), on every node.
///
/// Use is what the last measurement found (``StorageMeter``, every ``ServerConfiguration/usageInterval``), plus what
/// this node accepted since: the bytes of the requests that saved records or uploaded files into the database. So a
/// database may pass its quota by what other nodes accepted since the last measurement, never by more. Deletes are
/// always allowed, so that a user over quota can make room.
///
/// A write is noted with the time its commit was acknowledged, and a measurement forgets only what was noted before
/// it began: a write the measurement's snapshot could not see stays counted until the next one.
package final class StorageQuotas: Sendable {
    private struct Measured: Sendable {
        package var usage: StorageUsage?
    }

    private let store: any Store
    private let book: QuotaBook
    private let measured = EventFedCache<DatabaseRef, Measured>(timeToLive: .seconds(60), capacity: 100_000)
    /// Bytes this node accepted per database since the last measurement it heard of, with when they were noted
    /// (milliseconds, oldest first).
    private let accepted = Mutex<[DatabaseRef: [(at: Int64, bytes: Int64)]]>([:])
    /// The most notes kept per database: past it, neighbours merge under the later time (counted longer, never less).
    private static let notesPerDatabase = 4_096
    private let now: @Sendable () -> Int64

    package init(store: any Store, book: QuotaBook, now: @escaping @Sendable () -> Int64 = ServerClock.now) {
        self.store = store
        self.book = book
        self.now = now
        store.observeEvents { [weak self] delivery in
            switch delivery {
            case .missed:
                self?.measured.forgetAll()
            case .committed(let events):
                let measurements = events.compactMap { event -> Int64?? in
                    if case .usageMeasured(let measuredAt) = event { measuredAt } else { nil }
                }
                guard !measurements.isEmpty else { return }
                self?.measured.forgetAll()
                // A measurement from a version that did not say when it began forgets everything, as before.
                self?.forgetAccepted(through: measurements.contains(where: { $0 == nil }) ? .max : measurements.compactMap { $0 }.max() ?? .max)
            }
        }
    }

    /// The quota of `database` in bytes, or `nil` when it has none.
    package func quota(of database: DatabaseRef) async throws -> Int64? {
        let quotas = try await book.quotas(of: database.containerID)
        return Quotas.limit(database.scope == .public ? quotas.publicStorageBytes : quotas.userStorageBytes)
    }

    /// What `database` uses as far as this node knows: measured, plus what it accepted since.
    package func use(of database: DatabaseRef) async throws -> Int64 {
        let found = try await measured.value(for: database) { Measured(usage: try await self.store.storageUsage(of: database)) }
        return (found?.usage?.totalBytes ?? 0) + accepted.withLock { $0[database]?.reduce(0) { $0 + $1.bytes } ?? 0 }
    }

    /// Refuses writing `bytes` more into `database` when that would pass its quota.
    /// - Throws: `QUOTA_EXCEEDED` (413), naming the database and its quota.
    package func checkRoom(for bytes: Int64, in database: DatabaseRef) async throws {
        guard let quota = try await quota(of: database) else { return }
        let use = try await use(of: database)
        guard use + max(0, bytes) > quota else { return }
        let whose = database.scope == .public ? "the public database of \(database.containerID)" : "this user's private database"
        throw ServiceError(
            .quotaExceeded,
            "\(whose) uses \(StorageUsage.describe(use)) of its \(StorageUsage.describe(quota)) quota; delete records or assets to make room"
        )
    }

    /// Counts `bytes` this node accepted into `database`, until the next measurement.
    package func noteAccepted(_ bytes: Int64, in database: DatabaseRef) async throws {
        guard bytes > 0, try await quota(of: database) != nil else { return }
        let at = now()
        accepted.withLock { accepted in
            var notes = accepted[database, default: []]
            if let last = notes.last, last.at >= at {
                notes[notes.count - 1].bytes += bytes
            } else {
                notes.append((at, bytes))
            }
            if notes.count > Self.notesPerDatabase {
                notes = stride(from: 0, to: notes.count, by: 2).map { index in
                    index + 1 < notes.count ? (notes[index + 1].at, notes[index].bytes + notes[index + 1].bytes) : notes[index]
                }
            }
            accepted[database] = notes
        }
    }

    /// Forgets the bytes noted by `measuredAt` (milliseconds): their writes were acknowledged before the measurement
    /// began, so its snapshot counted them.
    private func forgetAccepted(through measuredAt: Int64) {
        accepted.withLock { accepted in
            for database in Array(accepted.keys) {
                let kept = accepted[database]?.filter { $0.at > measuredAt } ?? []
                accepted[database] = kept.isEmpty ? nil : kept
            }
        }
    }
}
