/// An asset's row as it moves through its life: uploading, stored (records may take it), being collected.
public enum AssetState: Int64, Sendable {
    case uploading = 0, stored = 1, collecting = 2
}

/// Asset files and receipts, written once over any backend's tables (``SQLTables``). Which records hold which
/// files (`ref_count`) is kept by the record writes of each backend.
extension AssetStore where Self: SQLTables {
    public func beginAssetUpload(id: String, database: DatabaseRef, holdUntil: Int64) async throws {
        try await execute([
            """
            INSERT INTO assets (id, container_id, environment, scope, owner, state, hold_until) VALUES (\(.text(id)), \
            \(.text(database.containerID)), \(.text(database.environment.rawValue)), \(.text(database.scope.rawValue)), \
            \(.text(database.ownerRecordName)), \(.integer(AssetState.uploading.rawValue)), \(.integer(holdUntil)))
            """,
        ])
    }

    public func completeAssetUpload(_ asset: StoredAsset, receipt: AssetReceipt) async throws {
        try await transaction(
            [
                """
                UPDATE assets SET state = \(.integer(AssetState.stored.rawValue)), size = \(.integer(asset.size)), \
                checksum = \(.text(asset.fileChecksum)), content_type = \(.text(asset.contentType)), hold_until = \(.integer(receipt.expiresAt))
                WHERE id = \(.text(asset.id)) AND state = \(.integer(AssetState.uploading.rawValue)) RETURNING id
                """,
                Self.insertion(of: receipt),
            ],
            then: { results in
                // Its upload took too long: the collector took the row.
                guard results[0].count == 1 else { throw StorageError.uploadExpired }
                return []
            }
        )
    }

    public func abandonAssetUpload(id: String) async throws {
        try await execute(["DELETE FROM assets WHERE id = \(.text(id)) AND state = \(.integer(AssetState.uploading.rawValue))"])
    }

    public func asset(id: String) async throws -> StoredAsset? {
        try await rows("""
            SELECT id, container_id, environment, scope, owner, size, checksum, content_type FROM assets
            WHERE id = \(.text(id)) AND state = \(.integer(AssetState.stored.rawValue))
            """).map { row in
            StoredAsset(
                id: try row.text("id"), database: try row.database(), size: try row.integer("size"),
                fileChecksum: try row.text("checksum"), contentType: try row.text("content_type")
            )
        }.first
    }

    public func issueAssetReceipts(_ receipts: [AssetReceipt]) async throws -> Set<String> {
        guard !receipts.isEmpty else { return [] }
        var statements: [SQLFragment] = []
        for receipt in receipts {
            // A receipt keeps its file at least until it expires.
            statements.append("""
                UPDATE assets SET hold_until = CASE WHEN hold_until < \(.integer(receipt.expiresAt)) THEN \(.integer(receipt.expiresAt)) \
                ELSE hold_until END WHERE id = \(.text(receipt.assetID)) AND state = \(.integer(AssetState.stored.rawValue)) RETURNING id
                """)
            statements.append(Self.insertion(of: receipt))
        }
        let results = try await transaction(statements)
        var missing = Set<String>()
        for (index, receipt) in receipts.enumerated() where results[2 * index].isEmpty {
            missing.insert(receipt.assetID)
        }
        return missing
    }

    public func assetsToCollect(now: Int64, limit: Int) async throws -> [String] {
        let results = try await transaction([
            "DELETE FROM asset_receipts WHERE expires_at <= \(.integer(now))",
            // Being collected sets hold_until to 0, so this also finds collections a crash interrupted.
            """
            UPDATE assets SET state = \(.integer(AssetState.collecting.rawValue)), hold_until = 0 WHERE id IN (
                SELECT id FROM assets WHERE ref_count = 0 AND hold_until <= \(.integer(now)) ORDER BY hold_until \
                LIMIT \(raw: "\(max(0, limit))")\(.lockSkippingLocked)
            ) RETURNING id
            """,
            """
            DELETE FROM asset_receipts WHERE asset_id IN (SELECT id FROM assets WHERE state = \(.integer(AssetState.collecting.rawValue)) \
            AND hold_until = 0)
            """,
        ])
        return try results[1].map { try $0.text("id") }
    }

    public func forgetAssets(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await execute([
            "DELETE FROM assets WHERE id\(anyOf: ids.map { .text($0) }) AND state = \(.integer(AssetState.collecting.rawValue))",
        ])
    }

    /// Stores a receipt, when its asset is stored (otherwise the statement writes nothing).
    private static func insertion(of receipt: AssetReceipt) -> SQLFragment {
        """
        INSERT INTO asset_receipts (receipt, asset_id, field, expires_at) SELECT \(.text(receipt.receipt)), \(.text(receipt.assetID)), \
        \(SQLValue(receipt.fieldName)), \(.integer(receipt.expiresAt)) WHERE EXISTS (SELECT 1 FROM assets WHERE id = \(.text(receipt.assetID)) \
        AND state = \(.integer(AssetState.stored.rawValue)))
        """
    }
}
