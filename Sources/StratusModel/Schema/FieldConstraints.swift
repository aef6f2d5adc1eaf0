/// Rules a field's values must follow: schema extensions CloudKit lacks, which a CloudKit schema file never
/// contains (`REQUIRED`, `NOT EMPTY`, `UNIQUE`, `UNIQUE WHERE`, `VALUES`, `RANGE`).
public struct FieldConstraints: Sendable, Hashable, Codable {
    /// `UNIQUE WHERE field = value`: unique among the records whose `field` holds `value`.
    public struct Condition: Sendable, Hashable, Codable {
        public var field: String
        public var value: JSONValue

        public init(field: String, value: JSONValue) {
            self.field = field
            self.value = value
        }
    }

    /// `REQUIRED`: every record has a value.
    public var isRequired: Bool
    /// `NOT EMPTY`: every record has a value that is not empty (text, bytes, lists, localized text).
    public var isNotEmpty: Bool
    /// `UNIQUE`: no two records of the type (in one zone) share a value.
    public var isUnique: Bool
    /// `UNIQUE WHERE`: uniqueness among the records that meet the condition only.
    public var uniqueWhere: Condition?
    /// `VALUES (...)`: the only values allowed.
    public var allowedValues: [JSONValue]?
    /// `RANGE min..max`: bounds of numeric and timestamp values, inclusive.
    public var minimum: Double?
    public var maximum: Double?

    public init(
        isRequired: Bool = false, isNotEmpty: Bool = false, isUnique: Bool = false, uniqueWhere: Condition? = nil,
        allowedValues: [JSONValue]? = nil, minimum: Double? = nil, maximum: Double? = nil
    ) {
        self.isRequired = isRequired
        self.isNotEmpty = isNotEmpty
        self.isUnique = isUnique
        self.uniqueWhere = uniqueWhere
        self.allowedValues = allowedValues
        self.minimum = minimum
        self.maximum = maximum
    }

    /// No constraint at all.
    public var isEmpty: Bool { self == FieldConstraints() }
}
