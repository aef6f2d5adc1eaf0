import StratusModel

/// How a store reads one page of a query, decided once for every backend by ``QueryPlanner``.
public enum QueryPlan: Sendable, Hashable {
    /// Each filter finds its matches through its own index; the matches are then sorted and the page cut.
    /// Right when no index is in the order the query sorts by, or when a filter is very selective.
    case lookups
    /// One index is read in order over a key range, checking the other filters on each entry, until the
    /// page is full: a query sorted by the index reads about one page, however many records match.
    case walk(IndexWalk)
}

/// An ordered read of one index: entries of `field` and `kind` whose key starts with `prefix`, within the
/// bounds, in key order (then by record), each record checked against `residualFilters`.
public struct IndexWalk: Sendable, Hashable {
    /// A field's name (`kind` ``IndexEntry/Kind/value``), or a compound index's name
    /// (``IndexEntry/Kind/compound``).
    public var field: String
    public var kind: IndexEntry.Kind
    /// The keys of the equality filters on a compound index's leading fields; empty for one field.
    public var prefix: IndexKey
    /// Keys the walk starts at (inclusive): each entry's key is at least every one of these.
    public var lowerBounds: [IndexKey]
    /// Keys the walk stops before (exclusive).
    public var upperBounds: [IndexKey]
    /// Whether the walk runs from the highest key down.
    public var descending: Bool
    /// The query's filters that the key range does not already guarantee.
    public var residualFilters: [Filter]

    public init(
        field: String, kind: IndexEntry.Kind, prefix: IndexKey = IndexKey(), lowerBounds: [IndexKey] = [], upperBounds: [IndexKey] = [],
        descending: Bool, residualFilters: [Filter]
    ) {
        self.field = field
        self.kind = kind
        self.prefix = prefix
        self.lowerBounds = lowerBounds
        self.upperBounds = upperBounds
        self.descending = descending
        self.residualFilters = residualFilters
    }

    /// The key of the entry a continuation resumes after: the prefix, then the sort keys of the last row.
    public func resumeKey(sortKeys: [IndexKey]) -> IndexKey {
        var key = prefix
        for sortKey in sortKeys { key.append(contentsOf: sortKey) }
        return key
    }
}

extension QueryPlan: CustomStringConvertible {
    /// One line for operators and tests: `walk INDEX (cat,n) descending, 1 bound, 0 filters checked`.
    public var description: String {
        switch self {
        case .lookups:
            return "look up each filter, then sort"
        case .walk(let walk):
            let index = walk.kind == .compound ? "INDEX (\(walk.field))" : walk.field
            let bounds = walk.lowerBounds.count + walk.upperBounds.count
            return "walk \(index) \(walk.descending ? "descending" : "ascending"), \(walk.prefix.bytes.isEmpty ? "no" : "an") equality prefix, "
                + "\(bounds) bound\(bounds == 1 ? "" : "s"), \(walk.residualFilters.count) filter\(walk.residualFilters.count == 1 ? "" : "s") checked"
        }
    }
}
