import StratusModel
import StratusStore

/// Every container's quotas as this node knows them: read from the store once, read again after a
/// ``StoreEvent/quotasChanged`` from any node (or a missed event), so a change holds on every node at once.
package final class QuotaBook: Sendable {
    private let store: any Store
    /// The rows as stored, under one key; a read that raced with a change is not kept.
    private let rows = EventFedCache<Int, [String: Quotas]>(timeToLive: .seconds(300), capacity: 1)

    package init(store: any Store) {
        self.store = store
        store.observeEvents { [weak self] delivery in
            switch delivery {
            case .missed:
                self?.forget()
            case .committed(let events):
                if events.contains(where: { if case .quotasChanged = $0 { true } else { false } }) {
                    self?.forget()
                }
            }
        }
    }

    /// Drops what this node knows, so that the next request reads the store. Called on a change's event, and at
    /// once by this node's own writes (an event reaches observers a moment after its commit).
    package func forget() {
        rows.forgetAll()
    }

    /// The quotas that hold for a container: its own, with what it does not set taken from the defaults.
    package func quotas(of containerID: String) async throws -> Quotas {
        let all = try await stored()
        let defaults = all[Quotas.defaultsKey] ?? Quotas()
        return (all[containerID] ?? Quotas()).filled(from: defaults)
    }

    /// The defaults and each container's own values, as stored.
    package func stored() async throws -> [String: Quotas] {
        try await rows.value(for: 0) { try await self.store.quotas() } ?? [:]
    }
}
