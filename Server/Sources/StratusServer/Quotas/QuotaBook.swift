import StratusStore
import Synchronization

/// Every container's quotas as this node knows them: read from the store once, read again after a
/// ``StoreEvent/quotasChanged`` from any node (or a missed event), so a change holds on every node at once.
final class QuotaBook: Sendable {
    private let store: any Store
    /// The rows as stored, or `nil` until read (or after a change).
    private let rows = Mutex<[String: Quotas]?>(nil)

    init(store: any Store) {
        self.store = store
        store.observeEvents { [weak self] delivery in
            switch delivery {
            case .missed:
                self?.rows.withLock { $0 = nil }
            case .committed(let events):
                if events.contains(where: { if case .quotasChanged = $0 { true } else { false } }) {
                    self?.rows.withLock { $0 = nil }
                }
            }
        }
    }

    /// The quotas that hold for a container: its own, with what it does not set taken from the defaults.
    func quotas(of containerID: String) async throws -> Quotas {
        let all = try await stored()
        let defaults = all[Quotas.defaultsKey] ?? Quotas()
        return (all[containerID] ?? Quotas()).filled(from: defaults)
    }

    /// The defaults and each container's own values, as stored.
    func stored() async throws -> [String: Quotas] {
        if let known = rows.withLock({ $0 }) { return known }
        let loaded = try await store.quotas()
        rows.withLock { $0 = loaded }
        return loaded
    }
}
