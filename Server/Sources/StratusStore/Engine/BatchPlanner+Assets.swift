import StratusModel

/// Turns the asset values a client saves into stored ones (see ``AssetStore``).
///
/// A value with a receipt takes the receipt's asset once its checks pass; a value without one must be an
/// asset the same field of the record already holds (a client saving back what it read).
extension BatchPlanner {
    /// Replaces the asset values of `sentFields` in `values` by stored ones.
    /// - Returns: the receipts taken, by field.
    /// - Throws: ``StorageError/Code/invalidArgument`` naming the field and what is wrong.
    mutating func bindAssets(
        _ values: inout [String: FieldValue], sentFields: some Collection<String>, live: StoredRecord?
    ) throws -> [(receipt: String, field: String)] {
        var used: [(receipt: String, field: String)] = []
        var held: [String: FieldValue]?
        for name in sentFields {
            guard let value = values[name], value.type.scalar == .asset else { continue }
            // Every receipt of the field first, so that one round loads them all.
            let receipts = value.assets.compactMap(\.receipt)
            let missing = receipts.filter { state.receipts[$0] == nil }
            if !missing.isEmpty {
                needs.receipts.formUnion(missing)
                throw NeedsLoading()
            }
            if held == nil, value.assets.contains(where: { $0.receipt == nil }) { held = try live?.fields.decode() ?? [:] }
            let key = live.map(\.key)
            values[name] = try value.mappingAssets { asset throws in
                if let receipt = asset.receipt {
                    let stored = try redeem(receipt, for: asset, field: name, record: key)
                    used.append((receipt, name))
                    return Asset(assetID: stored.id, fileChecksum: stored.fileChecksum, size: stored.size)
                }
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
    private func redeem(_ receipt: String, for asset: Asset, field: String, record: RecordKey?) throws -> StoredAsset {
        guard let found = state.receipts[receipt] ?? nil, found.expiresAt > batch.timestamp else {
            throw StorageError(.invalidArgument, "field \(field): the asset receipt is not valid or has expired; upload the file again")
        }
        let stored = found.asset
        guard stored.database == database else {
            throw StorageError(.invalidArgument, "field \(field): the asset receipt belongs to another database")
        }
        if let issuedFor = found.issuedFor, issuedFor != field {
            throw StorageError(.invalidArgument, "field \(field): the asset receipt was issued for field \(issuedFor)")
        }
        if let usedBy = found.usedBy, usedBy != record || found.usedField != field {
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
}
