/// Which field a filter or sort refers to.
public enum FieldReference: Sendable, Hashable {
    case field(String)
    case system(SystemField)

    /// The name used in error messages.
    public var name: String {
        switch self {
        case .field(let name): name
        case .system(let field): field.rawValue
        }
    }

    /// The field name of a token filter (`CONTAINS_ALL_TOKENS`, `CONTAINS_ANY_TOKENS`) that searches every
    /// SEARCHABLE string field of a record at once: CloudKit's `self CONTAINS` (`docs/protocol.md#queries`).
    public static let allTokensName = "allTokens"

    /// Whether this is the search of every searchable string field (``allTokensName``).
    public var isAllTokens: Bool { self == .field(Self.allTokensName) }
}

/// One typed query filter. Filters of a query are ANDed.
public struct Filter: Sendable, Hashable {
    public var comparator: Comparator
    public var field: FieldReference
    /// The comparand: a scalar, or a list for comparators that take candidates (`IN`).
    public var value: FieldValue
    /// For `NEAR`: the radius in metres.
    public var distance: Double?

    public init(comparator: Comparator, field: FieldReference, value: FieldValue, distance: Double? = nil) {
        self.comparator = comparator
        self.field = field
        self.value = value
        self.distance = distance
    }
}

/// One sort key. With `relativeLocation`, records sort by distance from it.
public struct SortDescriptor: Sendable, Hashable {
    public var field: FieldReference
    public var ascending: Bool
    public var relativeLocation: Location?

    public init(field: FieldReference, ascending: Bool = true, relativeLocation: Location? = nil) {
        self.field = field
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }
}

/// A typed query over one record type.
public struct Query: Sendable, Hashable {
    public var recordType: String
    public var filters: [Filter]
    public var sort: [SortDescriptor]

    public init(recordType: String, filters: [Filter] = [], sort: [SortDescriptor] = []) {
        self.recordType = recordType
        self.filters = filters
        self.sort = sort
    }
}
