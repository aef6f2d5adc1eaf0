/// A query filter comparator (`docs/protocol.md#queries`).
public enum Comparator: String, Sendable, Hashable, CaseIterable, Codable {
    case equals = "EQUALS"
    case notEquals = "NOT_EQUALS"
    case lessThan = "LESS_THAN"
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    case near = "NEAR"
    case containsAllTokens = "CONTAINS_ALL_TOKENS"
    case containsAnyTokens = "CONTAINS_ANY_TOKENS"
    case `in` = "IN"
    case notIn = "NOT_IN"
    case beginsWith = "BEGINS_WITH"
    case notBeginsWith = "NOT_BEGINS_WITH"
    case listContains = "LIST_CONTAINS"
    case notListContains = "NOT_LIST_CONTAINS"
    case listContainsAny = "LIST_CONTAINS_ANY"
    case notListContainsAny = "NOT_LIST_CONTAINS_ANY"
    case listContainsAll = "LIST_CONTAINS_ALL"
    case notListContainsAll = "NOT_LIST_CONTAINS_ALL"
    case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
    case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"

    /// Whether the comparator applies to the elements of a list field.
    public var isListComparator: Bool {
        switch self {
        case .listContains, .notListContains, .listContainsAny, .notListContainsAny, .listContainsAll,
            .notListContainsAll, .listMemberBeginsWith, .notListMemberBeginsWith:
            true
        default: false
        }
    }

    /// Whether the comparator's value is a list of candidates rather than one value.
    public var takesListValue: Bool {
        switch self {
        case .in, .notIn, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll: true
        default: false
        }
    }

    /// The positive comparator this one negates, if it is a negation.
    public var negated: Comparator? {
        switch self {
        case .notEquals: .equals
        case .notIn: .in
        case .notBeginsWith: .beginsWith
        case .notListContains: .listContains
        case .notListContainsAny: .listContainsAny
        case .notListContainsAll: .listContainsAll
        case .notListMemberBeginsWith: .listMemberBeginsWith
        default: nil
        }
    }
}
