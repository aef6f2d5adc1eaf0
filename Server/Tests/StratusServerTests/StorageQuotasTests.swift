import StratusModel
import StratusServices
import StratusStore
import StratusTestSupport
import Synchronization
import Testing

/// What a node counts against a storage quota between measurements, on an explicit clock and a store of the
/// backend under test.
@Suite struct StorageQuotasTests {
    static let container = "iCloud.com.example.Quotas"

    @Test("a measurement forgets the bytes noted before it began, and keeps those noted after, which its snapshot may not have seen")
    func measurementForgetsOnlyWhatItCounted() async throws {
        let folder = try TestFolder("stratus-storage-quotas")
        defer { folder.remove() }
        let store = try await StoreFactory.current.makeStore(folder.path)
        try await store.setQuotas(Quotas(publicStorageBytes: 1_000_000), containerID: Self.container)
        let clock = Mutex<Int64>(1_700_000_000_000)
        let quotas = StorageQuotas(store: store, book: QuotaBook(store: store)) { clock.withLock { $0 } }
        let database = DatabaseRef.publicDatabase(Self.container, .development)

        try await quotas.noteAccepted(100, in: database)
        #expect(try await quotas.use(of: database) == 100)

        // A measurement that began a second before the write was noted cannot have seen it.
        clock.withLock { $0 += 5_000 }
        try await quotas.noteAccepted(40, in: database)
        _ = try await store.measureStorage(now: clock.withLock { $0 } - 1_000)
        try await store.catchUpEvents()
        #expect(try await quotas.use(of: database) == 40, "the bytes noted before the measurement are forgotten, those after are kept")

        // One that began after both forgets both; the database holds nothing, so nothing is counted.
        clock.withLock { $0 += 5_000 }
        _ = try await store.measureStorage(now: clock.withLock { $0 })
        try await store.catchUpEvents()
        #expect(try await quotas.use(of: database) == 0)

        // A measurement begun the millisecond a write was noted counted it.
        try await quotas.noteAccepted(7, in: database)
        _ = try await store.measureStorage(now: clock.withLock { $0 })
        try await store.catchUpEvents()
        #expect(try await quotas.use(of: database) == 0)

        // Many notes between measurements are kept in bounded room, and none of their bytes is lost.
        for _ in 0..<10_000 {
            clock.withLock { $0 += 1 }
            try await quotas.noteAccepted(3, in: database)
        }
        #expect(try await quotas.use(of: database) == 30_000)

        // A database with no quota counts nothing.
        let other = DatabaseRef.publicDatabase("iCloud.com.example.Unlimited", .development)
        try await quotas.noteAccepted(100, in: other)
        #expect(try await quotas.use(of: other) == 0)
        await StoreFactory.current.releaseStore(store, folder.path)
    }

    @Test("a quota is refused only past it: the write that would pass it throws quotaExceeded, a delete never does")
    func roomIsCheckedAgainstTheQuota() async throws {
        let folder = try TestFolder("stratus-storage-quotas")
        defer { folder.remove() }
        let store = try await StoreFactory.current.makeStore(folder.path)
        try await store.setQuotas(Quotas(publicStorageBytes: 1_000), containerID: Self.container)
        let quotas = StorageQuotas(store: store, book: QuotaBook(store: store))
        let database = DatabaseRef.publicDatabase(Self.container, .development)
        try await quotas.checkRoom(for: 1_000, in: database)
        try await quotas.noteAccepted(900, in: database)
        try await quotas.checkRoom(for: 100, in: database)
        let refused = await #expect(throws: ServiceError.self) { try await quotas.checkRoom(for: 101, in: database) }
        #expect(refused?.kind == .quotaExceeded, "\(String(describing: refused))")
        try await quotas.checkRoom(for: 0, in: database)
        await StoreFactory.current.releaseStore(store, folder.path)
    }
}
