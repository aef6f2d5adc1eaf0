/// The indexes a field has: which queries and sorts it supports.
public struct FieldIndexes: OptionSet, Sendable, Hashable, Codable {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Equality and membership filters.
    public static let queryable = FieldIndexes(rawValue: 1)
    /// Ordering filters and sorting.
    public static let sortable = FieldIndexes(rawValue: 2)
    /// Token filters (CONTAINS_*_TOKENS).
    public static let searchable = FieldIndexes(rawValue: 4)
}

/// One field of a record type.
public struct FieldSchema: Sendable, Hashable {
    /// How a numeric field was declared in the schema language, kept so it prints back the same.
    public enum NumberSpelling: String, Sendable, Hashable, Codable {
        /// `NUMBER`
        case number
        /// `NUMBER PREFERRED AS INT64` or `NUMBER PREFERRED AS DOUBLE`
        case preferred
    }

    public var type: FieldType
    public var indexes: FieldIndexes
    /// Declared `ENCRYPTED` (private and shared databases only; never indexed).
    public var isEncrypted: Bool
    /// Set when the field was declared as a `NUMBER`.
    public var numberSpelling: NumberSpelling?
    /// Rules the field's values must follow.
    public var constraints: FieldConstraints

    public init(
        type: FieldType, indexes: FieldIndexes = [], isEncrypted: Bool = false, numberSpelling: NumberSpelling? = nil,
        constraints: FieldConstraints = FieldConstraints()
    ) {
        self.type = type
        self.indexes = indexes
        self.isEncrypted = isEncrypted
        self.numberSpelling = numberSpelling
        self.constraints = constraints
    }
}

extension FieldSchema: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, indexes, isEncrypted, numberSpelling, constraints
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(FieldType.self, forKey: .type)
        indexes = try container.decodeIfPresent(FieldIndexes.self, forKey: .indexes) ?? []
        isEncrypted = try container.decodeIfPresent(Bool.self, forKey: .isEncrypted) ?? false
        numberSpelling = try container.decodeIfPresent(NumberSpelling.self, forKey: .numberSpelling)
        constraints = try container.decodeIfPresent(FieldConstraints.self, forKey: .constraints) ?? FieldConstraints()
    }
}
