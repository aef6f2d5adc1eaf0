/// A reference field value: `{recordName, zoneID?, action}` (`docs/protocol.md#field-values`).
public struct Reference: Sendable, Hashable {
    /// What happens to the referencing record when its target is deleted.
    public enum Action: String, Sendable, Hashable, Codable, CaseIterable {
        /// Nothing.
        case none = "NONE"
        /// Deleting the target deletes the referencing record, transitively.
        case deleteSelf = "DELETE_SELF"
        /// The target must exist when the reference is saved, and cannot be deleted while referenced.
        case validate = "VALIDATE"
    }

    public var recordName: String
    /// The target's zone; absent means the referencing record's zone.
    public var zoneID: ZoneID?
    public var action: Action

    public init(recordName: String, zoneID: ZoneID? = nil, action: Action = .none) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.action = action
    }
}
