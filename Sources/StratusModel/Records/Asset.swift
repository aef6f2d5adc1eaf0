/// An asset field value: the dictionary an upload answers, stored beside the record (`ckws-protocol.md` §10).
public struct Asset: Sendable, Hashable {
    public var fileChecksum: String?
    public var size: Int64?
    public var referenceChecksum: String?
    public var wrappingKey: String?
    public var receipt: String?
    /// Present on reads only.
    public var downloadURL: String?

    public init(
        fileChecksum: String? = nil, size: Int64? = nil, referenceChecksum: String? = nil,
        wrappingKey: String? = nil, receipt: String? = nil, downloadURL: String? = nil
    ) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.referenceChecksum = referenceChecksum
        self.wrappingKey = wrappingKey
        self.receipt = receipt
        self.downloadURL = downloadURL
    }
}
