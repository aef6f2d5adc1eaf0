import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: AssetStore {
    enum AssetState: Int {
        case uploading = 0, stored = 1, collecting = 2
    }

    public func beginAssetUpload(id: String, database: DatabaseRef, holdUntil: Int64) async throws {
        try await write { batch in
            try batch.db.execute(
                sql: "INSERT INTO assets (id, container_id, environment, scope, owner, state, hold_until) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [
                    id, database.containerID, database.environment.rawValue, database.scope.rawValue, database.ownerRecordName,
                    AssetState.uploading.rawValue, holdUntil,
                ]
            )
        }
    }

    public func completeAssetUpload(_ asset: StoredAsset, receipt: AssetReceipt) async throws {
        try await write { batch in
            let db = batch.db
            try db.execute(
                sql: """
                    UPDATE assets SET state = ?, size = ?, checksum = ?, content_type = ?, hold_until = ?
                    WHERE id = ? AND state = ?
                    """,
                arguments: [
                    AssetState.stored.rawValue, asset.size, asset.fileChecksum, asset.contentType, receipt.expiresAt,
                    asset.id, AssetState.uploading.rawValue,
                ]
            )
            guard db.changesCount == 1 else {
                throw StorageError.uploadExpired
            }
            try Self.insert(receipt, db: db)
        }
    }

    public func abandonAssetUpload(id: String) async throws {
        try await write { batch in
            try batch.db.execute(sql: "DELETE FROM assets WHERE id = ? AND state = ?", arguments: [id, AssetState.uploading.rawValue])
        }
    }

    public func asset(id: String) async throws -> StoredAsset? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM assets WHERE id = ? AND state = ?"), arguments: [id, AssetState.stored.rawValue]
            ).map(Self.storedAsset(from:))
        }
    }

    public func issueAssetReceipts(_ receipts: [AssetReceipt]) async throws -> Set<String> {
        try await write { batch in
            var missing = Set<String>()
            for receipt in receipts {
                try batch.db.execute(
                    sql: "UPDATE assets SET hold_until = MAX(hold_until, ?) WHERE id = ? AND state = ?",
                    arguments: [receipt.expiresAt, receipt.assetID, AssetState.stored.rawValue]
                )
                guard batch.db.changesCount == 1 else {
                    missing.insert(receipt.assetID)
                    continue
                }
                try Self.insert(receipt, db: batch.db)
            }
            return missing
        }
    }

    public func assetsToCollect(now: Int64, limit: Int) async throws -> [String] {
        try await write { batch in
            let db = batch.db
            try db.execute(sql: "DELETE FROM asset_receipts WHERE expires_at <= ?", arguments: [now])
            // Being collected sets hold_until to 0, so this also finds collections a crash interrupted.
            let ids = try String.fetchAll(
                db, sql: "SELECT id FROM assets WHERE ref_count = 0 AND hold_until <= ? ORDER BY hold_until LIMIT ?",
                arguments: [now, limit]
            )
            for id in ids {
                try db.execute(sql: "UPDATE assets SET state = ?, hold_until = 0 WHERE id = ?", arguments: [AssetState.collecting.rawValue, id])
                try db.execute(sql: "DELETE FROM asset_receipts WHERE asset_id = ?", arguments: [id])
            }
            return ids
        }
    }

    public func forgetAssets(ids: [String]) async throws {
        guard !ids.isEmpty else { return }
        try await write { batch in
            for id in ids {
                try batch.db.execute(sql: "DELETE FROM assets WHERE id = ? AND state = ?", arguments: [id, AssetState.collecting.rawValue])
            }
        }
    }

    static func insert(_ receipt: AssetReceipt, db: Database) throws {
        try db.execute(
            sql: "INSERT INTO asset_receipts (receipt, asset_id, field, expires_at) VALUES (?, ?, ?, ?)",
            arguments: [receipt.receipt, receipt.assetID, receipt.fieldName, receipt.expiresAt]
        )
    }

    static func storedAsset(from row: Row) -> StoredAsset {
        StoredAsset(
            id: row["id"], database: database(from: row), size: row["size"], fileChecksum: row["checksum"], contentType: row["content_type"]
        )
    }
}
