import GRDB
import StratusModel
import StratusStore

/// Turns the asset values a client saves into stored ones, inside the writer's transaction (see ``AssetStore``).
///
/// A value with a receipt takes the receipt's asset once its checks pass; a value without one must be an
/// asset the same field of the record already holds (a client saving back what it read).
struct AssetBinder {
    /// A receipt a saved field took, marked used once the record's row exists.
    struct UsedReceipt {
        var receipt: String
        var field: String
    }

    let db: Database
    let zone: ZoneRef
    let live: RecordRow?
    let timestamp: Int64

    /// Replaces the asset values of `sentFields` in `values` by stored ones.
    /// - Returns: the receipts taken.
    /// - Throws: ``StorageError/Code/invalidArgument`` naming the field and what is wrong.
    func bind(_ values: inout [String: FieldValue], sentFields: some Collection<String>) throws -> [UsedReceipt] {
        var used: [UsedReceipt] = []
        var held: [String: FieldValue]?
        for name in sentFields {
            guard let value = values[name], value.type.scalar == .asset else { continue }
            values[name] = try value.mappingAssets { asset in
                if let receipt = asset.receipt {
                    let stored = try redeem(receipt, for: asset, field: name)
                    used.append(UsedReceipt(receipt: receipt, field: name))
                    return Asset(assetID: stored.id, fileChecksum: stored.fileChecksum, size: stored.size)
                }
                if held == nil { held = try live?.fields.decode() ?? [:] }
                guard let checksum = asset.fileChecksum,
                    let kept = held?[name]?.assets.first(where: { $0.fileChecksum == checksum && $0.assetID != nil })
                else {
                    throw StorageError(.invalidArgument, "field \(name): an asset value needs the receipt that its upload or assets/rereference answered")
                }
                return Asset(assetID: kept.assetID, fileChecksum: kept.fileChecksum, size: kept.size)
            }
        }
        return used
    }

    /// Checks a receipt against the asset value and the field it is saved in.
    private func redeem(_ receipt: String, for asset: Asset, field: String) throws -> StoredAsset {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT a.*, r.field AS receipt_field, r.expires_at, r.used_record_id, r.used_field
                FROM asset_receipts r JOIN assets a ON a.id = r.asset_id WHERE r.receipt = ?
                """),
            arguments: [receipt]
        ), row["state"] == SQLiteStore.AssetState.stored.rawValue, (row["expires_at"] as Int64) > timestamp
        else {
            throw StorageError(.invalidArgument, "field \(field): the asset receipt is not valid or has expired; upload the file again")
        }
        let stored = SQLiteStore.storedAsset(from: row)
        guard stored.database == zone.database else {
            throw StorageError(.invalidArgument, "field \(field): the asset receipt belongs to another database")
        }
        if let issuedFor: String = row["receipt_field"], issuedFor != field {
            throw StorageError(.invalidArgument, "field \(field): the asset receipt was issued for field \(issuedFor)")
        }
        if let usedBy: Int64 = row["used_record_id"], usedBy != live?.id || row["used_field"] != field {
            throw StorageError(.invalidArgument, "field \(field): the asset receipt was used by another field already")
        }
        guard let checksum = asset.fileChecksum else {
            throw StorageError(.invalidArgument, "field \(field): the asset value needs the fileChecksum its upload answered")
        }
        guard checksum == stored.fileChecksum else {
            throw StorageError(.invalidArgument, "field \(field): fileChecksum does not match the uploaded file")
        }
        if let size = asset.size, size != stored.size {
            throw StorageError(.invalidArgument, "field \(field): size \(size) does not match the uploaded file's \(stored.size) bytes")
        }
        return stored
    }

    /// Records which assets a record's fields hold, and marks the receipts they took as used.
    static func recordHoldings(_ values: [String: FieldValue], recordID: Int64, receipts: [UsedReceipt], db: Database) throws {
        for (name, value) in values where value.type.scalar == .asset {
            for asset in value.assets {
                guard let id = asset.assetID else { continue }
                try db.cachedStatement(sql: "INSERT OR IGNORE INTO asset_refs (record_id, field, asset_id) VALUES (?, ?, ?)")
                    .execute(arguments: [recordID, name, id])
            }
        }
        for used in receipts {
            try db.cachedStatement(sql: "UPDATE asset_receipts SET used_record_id = ?, used_field = ? WHERE receipt = ?")
                .execute(arguments: [recordID, used.field, used.receipt])
        }
    }
}
