/// The `assets/upload` request body: one upload URL per token (`docs/protocol.md#assets`).
public struct AssetUploadRequest: Sendable, Hashable, Codable {
    public struct Token: Sendable, Hashable, Codable {
        public var recordType: String
        public var fieldName: String
        /// The record the file is for; the server picks one when absent.
        public var recordName: String?

        public init(recordType: String, fieldName: String, recordName: String? = nil) {
            self.recordType = recordType
            self.fieldName = fieldName
            self.recordName = recordName
        }
    }
    public var zoneID: ZoneID?
    public var tokens: [Token]

    public init(zoneID: ZoneID? = nil, tokens: [Token]) {
        self.zoneID = zoneID
        self.tokens = tokens
    }
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
