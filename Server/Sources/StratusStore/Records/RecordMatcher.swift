import StratusModel

/// Decides whether one record matches a typed query, in memory, with the same answers as the stores'
/// index-driven queries: the same keys (``IndexEntry``), the same tokens, the same order (``IndexKey``).
///
/// Subscriptions use it to test a changed record against their filters without a query per change.
///
/// ```swift
/// let matcher = RecordMatcher(record: record, fields: try record.fields.decode())
/// if matcher.matches(query) { notify() }
/// ```
public struct RecordMatcher: Sendable {
    private let record: Record
    /// Every index entry of the record, by field name.
    private let entries: [String: [IndexEntry]]

    public init(record: Record, fields: [String: FieldValue]) {
        self.record = record
        entries = Dictionary(grouping: IndexEntry.entries(for: fields) { _ in FieldIndexing(values: true, words: true) }, by: \.field)
    }

    /// Whether every filter of `query` holds for the record (its type is not checked here).
    public func matches(_ query: Query) -> Bool {
        query.filters.allSatisfy(matches)
    }

    public func matches(_ filter: Filter) -> Bool {
        let positive = filter.comparator.negated ?? filter.comparator
        let holds: Bool
        switch filter.field {
        case .system(let field): holds = Self.holds(positive, systemKey(field), filter.value)
        case .field(let name): holds = fieldHolds(positive, name: name, filter)
        }
        return filter.comparator.negated == nil ? holds : !holds
    }

    private func systemKey(_ field: SystemField) -> IndexKey {
        switch field {
        case .recordName: IndexKey(.text(record.recordName))
        case .createdTimestamp: IndexKey(.integer(record.created.timestamp))
        case .modifiedTimestamp: IndexKey(.integer(record.modified.timestamp))
        case .createdUserRecordName: IndexKey(.text(record.created.userRecordName))
        case .modifiedUserRecordName: IndexKey(.text(record.modified.userRecordName))
        }
    }

    private func fieldHolds(_ positive: Comparator, name: String, _ filter: Filter) -> Bool {
        // A search of every searchable field (`allTokens`) takes the tokens of every field.
        let entries = name == FieldReference.allTokensName ? Array(entries.values.joined()) : entries[name] ?? []
        func keys(_ kind: IndexEntry.Kind) -> [IndexEntry] { entries.filter { $0.kind == kind } }
        switch positive {
        case .containsAllTokens, .containsAnyTokens:
            guard case .string(let text) = filter.value else { return false }
            let wanted = TextTokenizer.tokens(in: text)
            let present = Set(keys(.token).map(\.key))
            if positive == .containsAllTokens { return wanted.allSatisfy { present.contains(IndexKey(.text($0))) } }
            return wanted.contains { present.contains(IndexKey(.text($0))) }
        case .listContainsAll:
            let elements = keys(.listElement)
            return filter.value.elements.allSatisfy { element in elements.contains { Self.holds(.equals, $0.key, element) } }
        case .listContains, .listContainsAny, .listMemberBeginsWith:
            let scalar: Comparator = positive == .listContains ? .equals : positive == .listContainsAny ? .in : .beginsWith
            return keys(.listElement).contains { Self.holds(scalar, $0.key, filter.value) }
        case .near:
            guard case .location(let center) = filter.value, let distance = filter.distance else { return false }
            return keys(.value).contains { entry in
                guard let latitude = entry.key.number else { return false }
                return Location.distance(center.latitude, center.longitude, latitude, entry.extra) <= distance
            }
        default:
            return keys(.value).contains { Self.holds(positive, $0.key, filter.value) }
        }
    }

    /// Whether a stored key satisfies a positive scalar comparator against a comparand.
    static func holds(_ comparator: Comparator, _ key: IndexKey, _ value: FieldValue) -> Bool {
        switch comparator {
        case .in:
            return value.elements.contains { holds(.equals, key, $0) }
        case .beginsWith:
            guard case .string(let prefix) = value else { return false }
            return key.bytes.starts(with: IndexKey.textPrefix(prefix).bytes)
        default:
            guard let comparand = IndexEntry.key(for: value).map(IndexKey.init) else { return false }
            switch comparator {
            case .equals: return key == comparand
            case .lessThan: return key < comparand
            case .lessThanOrEquals: return key <= comparand
            case .greaterThan: return key > comparand
            case .greaterThanOrEquals: return key >= comparand
            default: return false
            }
        }
    }
}
