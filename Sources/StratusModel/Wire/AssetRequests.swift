/// The `assets/upload` request body: one upload URL per token (`ckws-protocol.md` §10).
public struct AssetUploadRequest: Sendable, Hashable, Decodable {
    public struct Token: Sendable, Hashable, Decodable {
        public var recordType: String
        public var fieldName: String
        /// The record the file is for; the server picks one when absent.
        public var recordName: String?
    }
    public var zoneID: ZoneID?
    public var tokens: [Token]
}

/// The `assets/rereference` request body: asset fields of existing records whose files other records may take.
public struct RereferenceAssetsRequest: Sendable, Hashable, Decodable {
    public struct Item: Sendable, Hashable, Decodable {
        public var recordName: String
        public var fieldName: String
    }
    public var zoneID: ZoneID?
    public var assets: [Item]
}
