/// A store that keeps some of its tables in memory (the schemas, the index builds in progress), which changes
/// made by other processes or nodes make stale.
public protocol CachingStore: EventStore, AnyObject {
    /// Forgets every cached schema; the next use reads it again.
    func forgetSchemas()
    /// Reads the index builds in progress again, without blocking the caller (event delivery).
    func reloadIndexBuilds()
}

extension CachingStore {
    /// Keeps the caches in step with every process's changes: what each delivery makes stale
    /// (``StoreEventDelivery/invalidatesSchemas``, ``StoreEventDelivery/invalidatesIndexBuilds``) is forgotten or
    /// read again. A backend calls it once, when it opens.
    public func keepCachesFresh() {
        observeEvents { [weak self] delivery in
            if delivery.invalidatesSchemas { self?.forgetSchemas() }
            if delivery.invalidatesIndexBuilds { self?.reloadIndexBuilds() }
        }
    }
}
