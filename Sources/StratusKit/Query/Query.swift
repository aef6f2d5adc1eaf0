import Foundation
internal import StratusModel

/// A query over one record type: a filter and a sort (`CKQuery`).
///
/// ```swift
/// let current = Query(recordType: "Message", filter: .field("isCurrent") == true)
/// let nearby = Query(
///     recordType: "Store",
///     filter: .field("location").near(here, within: 5_000) && .field("openedAt") <= Date.now,
///     sort: [.distance(from: "location", to: here)]
/// )
/// ```
public struct Query: Sendable, Hashable, Codable {
    public var recordType: String
    public var filter: Filter
    public var sort: [Sort]

    public init(recordType: String, filter: Filter = .all, sort: [Sort] = []) {
        self.recordType = recordType
        self.filter = filter
        self.sort = sort
    }

    /// Where the next page of a query starts (`CKQueryOperation.Cursor`).
    public struct Cursor: Sendable, Hashable {
        let query: Query
        let zoneID: Zone.ID?
        let marker: String
    }
}

/// The conditions a record must meet: comparisons of fields, all of which must hold.
public struct Filter: Sendable, Hashable, Codable {
    /// One comparison as the server runs it.
    struct Condition: Sendable, Hashable, Codable {
        var comparator: String
        var field: Field
        var value: FieldValue
        var distance: Double?
    }

    var conditions: [Condition]

    /// Every record of the type.
    public static let all = Filter(conditions: [])

    /// A field of the record, to compare: `.field("title") == "Hello"`.
    public static func field(_ name: String) -> Field { Field(name: name, isSystem: false) }

    /// One comparison by the wire's comparator name (`EQUALS`, `BEGINS_WITH`, `NEAR`…), for layers that translate
    /// another query language.
    package static func condition(_ comparator: String, _ field: Field, _ value: FieldValue, distance: Double? = nil) -> Filter {
        field.compare(comparator, value, distance: distance)
    }

    /// Both filters hold.
    public static func && (lhs: Filter, rhs: Filter) -> Filter {
        Filter(conditions: lhs.conditions + rhs.conditions)
    }

    /// A field in a comparison: one of the record type's fields, or a system field.
    public struct Field: Sendable, Hashable, Codable {
        let name: String
        let isSystem: Bool

        /// A field of the record.
        public static func field(_ name: String) -> Field { Field(name: name, isSystem: false) }
        /// The record's name (needs the `___recordID` index).
        public static let recordName = Field(name: "recordName", isSystem: true)
        public static let creationDate = Field(name: "createdTimestamp", isSystem: true)
        public static let modificationDate = Field(name: "modifiedTimestamp", isSystem: true)
        /// Every SEARCHABLE string field of the record at once, for ``containsAllTokens(of:)`` (CloudKit's
        /// `self CONTAINS`).
        public static let allTokens = Field(name: allTokensName, isSystem: false)
        /// The wire name of ``allTokens``.
        package static var allTokensName: String { FieldReference.allTokensName }

        func compare(_ comparator: String, _ value: FieldValue, distance: Double? = nil) -> Filter {
            Filter(conditions: [Condition(comparator: comparator, field: self, value: value, distance: distance)])
        }

        /// Records within `meters` of a location.
        public func near(_ location: Location, within meters: Double) -> Filter {
            compare("NEAR", .location(location), distance: meters)
        }

        /// A list field that contains `value`.
        public func contains(_ value: some RecordValue) -> Filter { compare("LIST_CONTAINS", value.fieldValue) }

        /// A string field that starts with `prefix`.
        public func begins(with prefix: String) -> Filter { compare("BEGINS_WITH", .string(prefix)) }

        /// A searchable text field holding every word of `text`.
        public func containsAllTokens(of text: String) -> Filter { compare("CONTAINS_ALL_TOKENS", .string(text)) }

        /// A field whose value is one of `values`.
        public func isIn<Value: RecordValue>(_ values: [Value]) -> Filter { compare("IN", values.fieldValue) }

        /// A field whose value is none of `values`.
        public func isNotIn<Value: RecordValue>(_ values: [Value]) -> Filter { compare("NOT_IN", values.fieldValue) }

        public static func == (field: Field, value: some RecordValue) -> Filter { field.compare("EQUALS", value.fieldValue) }
        public static func != (field: Field, value: some RecordValue) -> Filter { field.compare("NOT_EQUALS", value.fieldValue) }
        public static func < (field: Field, value: some RecordValue) -> Filter { field.compare("LESS_THAN", value.fieldValue) }
        public static func <= (field: Field, value: some RecordValue) -> Filter { field.compare("LESS_THAN_OR_EQUALS", value.fieldValue) }
        public static func > (field: Field, value: some RecordValue) -> Filter { field.compare("GREATER_THAN", value.fieldValue) }
        public static func >= (field: Field, value: some RecordValue) -> Filter { field.compare("GREATER_THAN_OR_EQUALS", value.fieldValue) }
    }
}

extension Query {
    /// How query results are ordered: `.ascending("name")`, `.descending(.modificationDate)`, `.distance(from:to:)`.
    public struct Sort: Sendable, Hashable, Codable {
        var field: Filter.Field
        var ascending: Bool
        var relativeLocation: Location?

        /// Smallest first.
        public static func ascending(_ field: String) -> Sort { Sort(field: .field(field), ascending: true) }
        /// Largest first.
        public static func descending(_ field: String) -> Sort { Sort(field: .field(field), ascending: false) }
        /// By a system field.
        public static func ascending(_ field: Filter.Field) -> Sort { Sort(field: field, ascending: true) }
        public static func descending(_ field: Filter.Field) -> Sort { Sort(field: field, ascending: false) }
        /// Nearest first.
        public static func distance(from field: String, to location: Location) -> Sort {
            Sort(field: .field(field), ascending: true, relativeLocation: location)
        }
    }
}

extension Filter {
    /// The comparisons, for layers that show a filter in another query language.
    package var comparisons: [(comparator: String, field: String, isSystem: Bool, value: FieldValue, distance: Double?)] {
        conditions.map { ($0.comparator, $0.field.name, $0.field.isSystem, $0.value, $0.distance) }
    }
}

extension Query.Sort {
    /// The field it orders by, its direction and, by distance, the place, for layers that show a sort in another
    /// query language.
    package var parts: (field: String, isSystem: Bool, ascending: Bool, relativeLocation: Location?) {
        (field.name, field.isSystem, ascending, relativeLocation)
    }
}
