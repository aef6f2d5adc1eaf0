import StratusModel

/// Chooses how to read a sorted query page (``QueryPlan``), the same way for every backend.
///
/// In order of preference:
/// 1. a compound index whose leading fields have `EQUALS` filters and whose other fields are exactly the
///    sort fields (all sorted the same way): it is read in order over the equal values, so a page reads
///    about a page of entries;
/// 2. the single-field index of the only sort field, when a filter on that field bounds it (so that every
///    match has a value there): read in order within the bounds, checking the other filters on each entry;
/// 3. lookups: each filter through its own index, then a sort.
///
/// ```swift
/// let plan = QueryPlanner.plan(query, type: schema.recordTypes["Item"], building: [])
/// // walk INDEX (cat,n) descending, an equality prefix, 1 bound, 0 filters checked
/// ```
public enum QueryPlanner {
    /// The plan for `query` over records of `type`, leaving out indexes named in `building` (still being
    /// built over existing records: they lack entries).
    public static func plan(_ query: Query, type: RecordTypeSchema?, building: Set<String>) -> QueryPlan {
        guard let type, let sortNames = orderedSortFields(query.sort) else { return .lookups }
        let descending = !(query.sort.first?.ascending ?? true)
        if let walk = compoundWalk(query, type: type, sortNames: sortNames, descending: descending, building: building) {
            return .walk(walk)
        }
        if let walk = singleFieldWalk(query, type: type, sortNames: sortNames, descending: descending, building: building) {
            return .walk(walk)
        }
        return .lookups
    }

    /// The sort's schema field names, when an index can serve it: at least one sort, all in one direction,
    /// none by distance.
    static func orderedSortFields(_ sort: [SortDescriptor]) -> [String]? {
        guard let first = sort.first else { return nil }
        guard sort.allSatisfy({ $0.ascending == first.ascending && $0.relativeLocation == nil }) else { return nil }
        var names: [String] = []
        for descriptor in sort {
            guard let name = exactName(of: descriptor.field) else { return nil }
            names.append(name)
        }
        return names
    }

    // MARK: - Compound indexes

    private static func compoundWalk(
        _ query: Query, type: RecordTypeSchema, sortNames: [String], descending: Bool, building: Set<String>
    ) -> IndexWalk? {
        var best: (walk: IndexWalk, prefixLength: Int)?
        for index in type.compoundIndexes where !building.contains(index.name) {
            var consumed = Set<Int>()
            var prefix = IndexKey()
            var prefixLength = 0
            for field in index.fields {
                guard let position = query.filters.indices.first(where: { !consumed.contains($0) && isEquality(query.filters[$0], on: field) }),
                    let key = IndexEntry.key(for: query.filters[position].value)
                else { break }
                prefix.append(key)
                consumed.insert(position)
                prefixLength += 1
            }
            guard Array(index.fields.dropFirst(prefixLength)) == sortNames else { continue }
            var walk = IndexWalk(field: index.name, kind: .compound, prefix: prefix, descending: descending, residualFilters: [])
            bound(&walk, by: query.filters, on: sortNames[0], consumed: &consumed)
            if prefixLength > 0, walk.lowerBounds.isEmpty { walk.lowerBounds = [prefix] }
            if prefixLength > 0, walk.upperBounds.isEmpty, let end = prefix.prefixEnd { walk.upperBounds = [end] }
            walk.residualFilters = query.filters.indices.filter { !consumed.contains($0) }.map { query.filters[$0] }
            if best == nil || prefixLength > best!.prefixLength { best = (walk, prefixLength) }
        }
        return best?.walk
    }

    /// Whether `filter` is `EQUALS` on `field` (a schema name) with a value an index key can hold.
    private static func isEquality(_ filter: Filter, on field: String) -> Bool {
        filter.comparator == .equals && exactName(of: filter.field) == field && IndexEntry.key(for: filter.value) != nil
    }

    // MARK: - One field

    private static func singleFieldWalk(
        _ query: Query, type: RecordTypeSchema, sortNames: [String], descending: Bool, building: Set<String>
    ) -> IndexWalk? {
        guard sortNames.count == 1, let field = type.fields[sortNames[0]], CompoundIndex.orderable(field),
            type.indexing(of: sortNames[0]).values, !building.contains(sortNames[0])
        else { return nil }
        var walk = IndexWalk(field: sortNames[0], kind: .value, descending: descending, residualFilters: [])
        var consumed = Set<Int>()
        bound(&walk, by: query.filters, on: sortNames[0], consumed: &consumed)
        // Without a bound, records lacking the field would be left out of the walk, but belong in the result.
        guard !consumed.isEmpty else { return nil }
        walk.residualFilters = query.filters.indices.filter { !consumed.contains($0) }.map { query.filters[$0] }
        return walk
    }

    // MARK: - Bounds

    /// Turns the filters on `field` that a key range expresses exactly into the walk's bounds, after its prefix.
    private static func bound(_ walk: inout IndexWalk, by filters: [Filter], on field: String, consumed: inout Set<Int>) {
        for (position, filter) in filters.enumerated() where !consumed.contains(position) && exactName(of: filter.field) == field {
            let start: IndexKey
            if filter.comparator == .beginsWith {
                guard case .string(let text) = filter.value else { continue }
                start = walk.prefix.appending(IndexKey.textPrefix(text))
            } else {
                guard let key = IndexEntry.key(for: filter.value) else { continue }
                start = walk.prefix.appending(IndexKey(key))
            }
            let end = start.prefixEnd
            switch filter.comparator {
            case .equals, .beginsWith:
                walk.lowerBounds.append(start)
                if let end { walk.upperBounds.append(end) }
            case .greaterThan:
                guard let end else { continue }
                walk.lowerBounds.append(end)
            case .greaterThanOrEquals:
                walk.lowerBounds.append(start)
            case .lessThan:
                walk.upperBounds.append(start)
            case .lessThanOrEquals:
                guard let end else { continue }
                walk.upperBounds.append(end)
            default:
                continue
            }
            consumed.insert(position)
        }
    }

    /// A field's schema name when the reference names exactly the indexed value: a system field that compound
    /// indexes hold, or a top-level user field (not a language of a localized string).
    static func exactName(of field: FieldReference) -> String? {
        let name = IndexPolicy.schemaName(of: field)
        switch field {
        case .system: return CompoundIndex.systemFields.contains(name) ? name : nil
        case .field(let path): return path == name ? name : nil
        }
    }
}

extension IndexKey {
    /// This key followed by the components of `other`.
    public func appending(_ other: IndexKey) -> IndexKey {
        var key = self
        key.append(contentsOf: other)
        return key
    }
}
