import StratusModel
import StratusStore
import Synchronization

/// Refuses saves and uploads into a database whose storage is at its quota (`413 QUOTA_EXCEEDED`), on every node.
///
/// Use is what the last measurement found (``StorageMeter``, every ``ServerConfiguration/usageInterval``), plus what
/// this node accepted since: the bytes of the requests that saved records or uploaded files into the database. So a
/// database may pass its quota by what other nodes accepted since the last measurement, never by more. Deletes are
/// always allowed, so that a user over quota can make room.
package final class StorageQuotas: Sendable {
    private struct Measured: Sendable {
        package var usage: StorageUsage?
    }

    private let store: any Store
    private let book: QuotaBook
    private let measured = EventFedCache<DatabaseRef, Measured>(timeToLive: .seconds(60), capacity: 100_000)
    /// Bytes this node accepted per database since the last measurement it heard of.
    private let accepted = Mutex<[DatabaseRef: Int64]>([:])

    package init(store: any Store, book: QuotaBook) {
        self.store = store
        self.book = book
        store.observeEvents { [weak self] delivery in
            switch delivery {
            case .missed:
                self?.measured.forgetAll()
            case .committed(let events):
                guard events.contains(where: { if case .usageMeasured = $0 { true } else { false } }) else { return }
                self?.measured.forgetAll()
                self?.accepted.withLock { $0.removeAll() }
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
        return (found?.usage?.totalBytes ?? 0) + accepted.withLock { $0[database] ?? 0 }
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
        accepted.withLock { $0[database, default: 0] += bytes }
    }
}
