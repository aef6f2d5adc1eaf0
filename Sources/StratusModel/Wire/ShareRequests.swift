/// A ShortGUID dictionary: one share named by its link, and what to answer about it.
public struct ShortGUIDInput: Sendable, Hashable, Codable {
    public var value: String
    public var shouldFetchRootRecord: Bool?
    public var rootRecordDesiredKeys: [String]?

    public init(value: String, shouldFetchRootRecord: Bool? = nil, rootRecordDesiredKeys: [String]? = nil) {
        self.value = value
        self.shouldFetchRootRecord = shouldFetchRootRecord
        self.rootRecordDesiredKeys = rootRecordDesiredKeys
    }
}

/// The body of `records/resolve` and `records/accept`.
public struct ShortGUIDsRequest: Sendable, Hashable, Codable {
    public var shortGUIDs: [ShortGUIDInput]

    public init(shortGUIDs: [ShortGUIDInput]) {
        self.shortGUIDs = shortGUIDs
    }
}
