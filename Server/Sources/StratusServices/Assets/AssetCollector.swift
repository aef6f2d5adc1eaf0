import Foundation
import Logging
import ServiceLifecycle
import StratusStore

/// Deletes asset files that nothing holds any more: files whose last record was deleted or changed,
/// uploads never attached before their receipts expired, and what interrupted uploads left behind.
///
/// Runs as a service beside the server, sweeping at the configured interval in the one process that holds
/// the `asset-collection` lease; a failed sweep is logged and tried again at the next one. See ``AssetStore`` for why a collection is safe against a concurrent
/// `assets/rereference`.
public struct AssetCollector: Service {
    package let store: any Store
    package let blobs: any BlobStore
    package let configuration: ServerConfiguration
    package let logger: Logger
    /// Assets collected per store call.
    package static let batchSize = 100

    public init(store: any Store, blobs: any BlobStore, configuration: ServerConfiguration, logger: Logger) {
        self.store = store
        self.blobs = blobs
        self.configuration = configuration
        self.logger = logger
    }

    public func run() async throws {
        let lease = Lease(
            name: "asset-collection", holder: Lease.holder(onNode: configuration.nodeName),
            duration: max(60_000, Int64(configuration.assetSweepInterval * 3_000))
        )
        await LeasedChore.run(
            lease, store: store, every: .milliseconds(Int64(configuration.assetSweepInterval * 1000)), logger: logger, failure: "asset collection failed"
        ) {
            let removed = try await sweep()
            if removed > 0 { logger.info("collected unreferenced assets", metadata: ["stratus.assets": "\(removed)"]) }
        }
    }

    /// Collects what is collectable now.
    /// - Returns: how many assets were deleted.
    @discardableResult
    public func sweep(now: Date = Date()) async throws -> Int {
        let milliseconds = Int64(now.timeIntervalSince1970 * 1000)
        var removed = 0
        while true {
            let ids = try await store.assetsToCollect(now: milliseconds, limit: Self.batchSize)
            for id in ids {
                try await blobs.delete(key: id)
            }
            try await store.forgetAssets(ids: ids)
            removed += ids.count
            if ids.count < Self.batchSize { break }
        }
        // An upload still being written is held for twice the upload lifetime (AssetTransfer).
        try await blobs.removeAbandonedUploads(startedBefore: now.addingTimeInterval(-2 * Double(configuration.assetUploadLifetime)))
        return removed
    }
}
