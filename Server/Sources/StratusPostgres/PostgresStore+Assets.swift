import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore: AssetStore {
    public func beginAssetUpload(id: String, database: DatabaseRef, holdUntil: Int64) async throws {
        try await writeUnpositioned { connection in
            try await connection.run(
                """
                INSERT INTO assets (id, container_id, environment, scope, owner, state, hold_until)
                VALUES (\(id), \(database.containerID), \(database.environment.rawValue), \(database.scope.rawValue), \(database.ownerRecordName),
                    \(AssetState.uploading.rawValue), \(holdUntil))
                """,
                logger: self.logger
            )
        }
    }

    public func completeAssetUpload(_ asset: StoredAsset, receipt: AssetReceipt) async throws {
        try await write { write in
            let updated = try await write.connection.count(
                """
                UPDATE assets SET state = \(AssetState.stored.rawValue), size = \(asset.size), checksum = \(asset.fileChecksum),
                    content_type = \(asset.contentType), hold_until = \(receipt.expiresAt)
                WHERE id = \(asset.id) AND state = \(AssetState.uploading.rawValue) RETURNING 1
                """,
                logger: write.logger
            )
            guard updated == 1 else { throw StorageError.uploadExpired }
            try await Self.insert(receipt, write: write)
        }
    }

    public func abandonAssetUpload(id: String) async throws {
        try await writeUnpositioned { connection in
            try await connection.run("DELETE FROM assets WHERE id = \(id) AND state = \(AssetState.uploading.rawValue)", logger: self.logger)
        }
    }

    public func asset(id: String) async throws -> StoredAsset? {
        try await read { connection in
            try await connection.rows(
                """
                SELECT id, container_id, environment, scope, owner, size, checksum, content_type FROM assets
                WHERE id = \(id) AND state = \(AssetState.stored.rawValue)
                """,
                as: (String, String, String, String, String, Int64, String, String).self, logger: self.logger
            ).first.map { id, container, environment, scope, owner, size, checksum, contentType in
                StoredAsset(
                    id: id, database: Self.database(container, environment, scope, owner), size: size, fileChecksum: checksum, contentType: contentType
                )
            }
        }
    }

    public func issueAssetReceipts(_ receipts: [AssetReceipt]) async throws -> Set<String> {
        try await write { write in
            var missing = Set<String>()
            for receipt in receipts {
                let updated = try await write.connection.count(
                    """
                    UPDATE assets SET hold_until = GREATEST(hold_until, \(receipt.expiresAt))
                    WHERE id = \(receipt.assetID) AND state = \(AssetState.stored.rawValue) RETURNING 1
                    """,
                    logger: write.logger
                )
                guard updated == 1 else {
                    missing.insert(receipt.assetID)
                    continue
                }
                try await Self.insert(receipt, write: write)
            }
            return missing
        }
    }

    public func assetsToCollect(now: Int64, limit: Int) async throws -> [String] {
        try await write { write in
            try await write.connection.run("DELETE FROM asset_receipts WHERE expires_at <= \(now)", logger: write.logger)
            // Being collected sets hold_until to 0, so this also finds collections a crash interrupted.
            let ids = try await write.connection.all(
                """
                UPDATE assets SET state = \(AssetState.collecting.rawValue), hold_until = 0 WHERE id IN (
                    SELECT id FROM assets WHERE ref_count = 0 AND hold_until <= \(now) ORDER BY hold_until LIMIT \(Int64(limit))
                    FOR UPDATE SKIP LOCKED
                ) RETURNING id
                """,
                as: String.self, logger: write.logger
            )
            if !ids.isEmpty {
                try await write.connection.run("DELETE FROM asset_receipts WHERE asset_id = ANY(\(ids))", logger: write.logger)
            }
            return ids
        }
    }

    public func forgetAssets(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await writeUnpositioned { connection in
            try await connection.run(
                "DELETE FROM assets WHERE id = ANY(\(ids)) AND state = \(AssetState.collecting.rawValue)", logger: self.logger
            )
        }
    }

    private static func insert(_ receipt: AssetReceipt, write: PostgresWrite) async throws {
        try await write.connection.run(
            """
            INSERT INTO asset_receipts (receipt, asset_id, field, expires_at)
            VALUES (\(receipt.receipt), \(receipt.assetID), \(receipt.fieldName), \(receipt.expiresAt))
            """,
            logger: write.logger
        )
    }
}
