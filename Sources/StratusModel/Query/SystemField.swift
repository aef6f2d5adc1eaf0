/// A system field a query may filter or sort on (`docs/protocol.md#queries`).
public enum SystemField: String, Sendable, Hashable, CaseIterable {
    case recordName
    case createdTimestamp
    case modifiedTimestamp
    case createdUserRecordName
    case modifiedUserRecordName

    /// Parses a system field name, in either its query spelling or its schema spelling (`___createTime`).
    public init?(wireName: String) {
        switch wireName {
        case "recordName", "___recordID", "___recordId": self = .recordName
        case "createdTimestamp", "___createTime": self = .createdTimestamp
        case "modifiedTimestamp", "___modTime": self = .modifiedTimestamp
        case "createdUserRecordName", "___createdBy": self = .createdUserRecordName
        case "modifiedUserRecordName", "___modifiedBy": self = .modifiedUserRecordName
        default: return nil
        }
    }

    /// The type of the field's values.
    public var valueType: ScalarType {
        switch self {
        case .createdTimestamp, .modifiedTimestamp: .timestamp
        case .recordName, .createdUserRecordName, .modifiedUserRecordName: .string
        }
    }
}
