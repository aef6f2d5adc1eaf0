import StratusModel

/// A stored asset file as the record store knows it; the bytes are in the ``BlobStore`` under ``id``.
public struct StoredAsset: Sendable, Hashable {
    public var id: String
    /// The database whose records may take the asset.
    public var database: DatabaseRef
    public var size: Int64
    /// Base64 of the file's SHA-256 digest: the `fileChecksum` clients send back when attaching it.
    public var fileChecksum: String
    public var contentType: String

    public init(id: String, database: DatabaseRef, size: Int64, fileChecksum: String, contentType: String) {
        self.id = id
        self.database = database
        self.size = size
        self.fileChecksum = fileChecksum
        self.contentType = contentType
    }
}

/// Lets one record field take a stored asset until it expires (`docs/protocol.md#assets`).
///
/// An upload answers one for its field; `assets/rereference` answers ones for any field. A receipt is
/// used once: saving the same field of the same record with it again is allowed, any other field is not.
public struct AssetReceipt: Sendable, Hashable {
    public var receipt: String
    public var assetID: String
    /// The field it was issued for; `nil` for any asset field.
    public var fieldName: String?
    /// Milliseconds since 1970.
    public var expiresAt: Int64

    public init(receipt: String, assetID: String, fieldName: String?, expiresAt: Int64) {
        self.receipt = receipt
        self.assetID = assetID
        self.fieldName = fieldName
        self.expiresAt = expiresAt
    }
}

/// The record store's side of assets: which files exist, which receipts are valid, which records hold
/// which files, and which files nothing holds any more.
///
/// Records take assets in ``RecordStore/modifyRecords(_:)``: an asset value with a receipt is checked
/// (valid, unexpired, of this database, unused by another field, same `fileChecksum`) and stored as
/// `{assetID, fileChecksum, size}`; one without a receipt must be an asset the same field already holds.
///
/// An asset is collected when no record holds it and its hold (upload in progress, unexpired receipts)
/// has passed. Collection first marks the asset so no receipt can attach it, then the caller deletes the
/// file and forgets the asset, so a crash in between is finished by the next collection.
public protocol AssetStore: Sendable {
    /// Records an upload about to be streamed, held until `holdUntil` (milliseconds) while it is written.
    func beginAssetUpload(id: String, database: DatabaseRef, holdUntil: Int64) async throws
    /// Records that the upload's file is stored, and issues its receipt. The asset is held until the receipt expires.
    /// - Throws: ``StorageError/Code/notFound`` when the upload was collected meanwhile.
    func completeAssetUpload(_ asset: StoredAsset, receipt: AssetReceipt) async throws
    /// Forgets an upload whose file was not stored.
    func abandonAssetUpload(id: String) async throws
    /// A stored asset, unless it is being uploaded or collected.
    func asset(id: String) async throws -> StoredAsset?
    /// Issues receipts for stored assets, holding each asset until its receipt expires.
    /// - Returns: the IDs of the assets that no longer exist, whose receipts were not issued.
    func issueAssetReceipts(_ receipts: [AssetReceipt]) async throws -> Set<String>
    /// Marks up to `limit` assets that no record holds, whose hold passed before `now`, as being collected.
    /// - Returns: their IDs, and those of earlier collections a crash interrupted.
    func assetsToCollect(now: Int64, limit: Int) async throws -> [String]
    /// Forgets collected assets once their files are deleted.
    func forgetAssets(ids: [String]) async throws
}
