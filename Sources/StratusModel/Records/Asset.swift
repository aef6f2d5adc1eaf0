/// An asset field value: the dictionary an upload answers, stored beside the record (`docs/protocol.md#assets`).
///
/// Clients write the upload's `{fileChecksum, size, receipt}`; the server stores `{assetID, fileChecksum, size}`
/// and answers reads with `{fileChecksum, size, downloadURL}`.
public struct Asset: Sendable, Hashable {
    /// The server's name for the stored file. Kept in stored records only; never sent to clients and never
    /// taken from them.
    public var assetID: String?
    public var fileChecksum: String?
    public var size: Int64?
    public var referenceChecksum: String?
    public var wrappingKey: String?
    /// Proves an upload (or a rereference) and lets one record field take the file.
    public var receipt: String?
    /// Present on reads only.
    public var downloadURL: String?

    public init(
        assetID: String? = nil, fileChecksum: String? = nil, size: Int64? = nil, referenceChecksum: String? = nil,
        wrappingKey: String? = nil, receipt: String? = nil, downloadURL: String? = nil
    ) {
        self.assetID = assetID
        self.fileChecksum = fileChecksum
        self.size = size
        self.referenceChecksum = referenceChecksum
        self.wrappingKey = wrappingKey
        self.receipt = receipt
        self.downloadURL = downloadURL
    }
}

/// Gives asset values their download URLs while records are rendered for one caller.
public protocol AssetLinking: Sendable {
    /// The URL the caller downloads the stored file `assetID` of `record`'s field from, or `nil` for none.
    func downloadURL(forAsset assetID: String, field: String, of record: Record) -> String?
}

extension FieldValue {
    /// The asset values in this value (itself, or a list's elements).
    public var assets: [Asset] {
        elements.compactMap { element in
            if case .asset(let asset) = element { return asset }
            return nil
        }
    }

    /// This value with every asset replaced by `transform(asset)`.
    public func mappingAssets(_ transform: (Asset) throws -> Asset) rethrows -> FieldValue {
        switch self {
        case .asset(let asset): return .asset(try transform(asset))
        case .list(.asset, let elements): return .list(.asset, try elements.map { try $0.mappingAssets(transform) })
        default: return self
        }
    }
}
