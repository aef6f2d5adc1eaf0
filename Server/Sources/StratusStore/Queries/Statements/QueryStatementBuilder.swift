import Foundation
import StratusModel

/// Builds the SQL of one query page over the records and field_index tables, as its ``QueryPlan`` says
/// (``PlannedQuery/pageStatement(zones:dialect:)``). Index keys are bytes compared bytewise and record text
/// columns are compared in byte order, so every dialect returns one order.
struct QueryStatementBuilder<Dialect: SQLDialect> {
    let zones: QueryZones
    let recordType: String
    let walk: IndexWalk?
    let dialect: Dialect
    private(set) var conditions: [SQLFragment] = []
    private(set) var hasIndexedFilter = false
    private(set) var sortKeys: [QuerySortKey] = []

    init(zones: QueryZones, recordType: String, plan: QueryPlan, dialect: Dialect) {
        self.zones = zones
        self.recordType = recordType
        self.dialect = dialect
        if case .walk(let walk) = plan { self.walk = walk } else { walk = nil }
    }

    /// `column` restricted to the query's zones; zones are bound, never written into the text, so that every
    /// zone's queries of one shape share a statement.
    func zoneCondition(_ column: String) -> SQLFragment {
        switch zones {
        case .ids(let ids) where ids.count == 1: return "\(raw: column) = \(.integer(ids[0]))"
        case .ids(let ids) where ids.isEmpty: return "false"
        case .ids(let ids): return "\(raw: column)\(anyOf: ids.map { .integer($0) })"
        case .named(let zone):
            let database = zone.database
            return """
                \(raw: column) = (SELECT id FROM zones WHERE container_id = \(.text(database.containerID)) \
                AND environment = \(.text(database.environment.rawValue)) AND scope = \(.text(database.scope.rawValue)) \
                AND owner = \(.text(database.ownerRecordName)) AND name = \(.text(zone.zoneName)) AND \(raw: dialect.live("zones")))
                """
        }
    }

    // MARK: - Filters

    mutating func add(_ filter: Filter) throws(StorageError) {
        switch filter.field {
        case .system(let field): try addSystem(filter, column: column(of: field))
        case .field(let name): try addField(filter, name: name)
        }
    }

    private mutating func addSystem(_ filter: Filter, column: String) throws(StorageError) {
        let positive = filter.comparator.negated ?? filter.comparator
        let condition = try valueCondition(positive, on: column, value: filter.value)
        conditions.append(filter.comparator.negated != nil ? "NOT (\(condition))" : condition)
    }

    private mutating func addField(_ filter: Filter, name: String) throws(StorageError) {
        let negated = filter.comparator.negated != nil
        let positive = filter.comparator.negated ?? filter.comparator
        // Each lookup is one index entry condition the record must have; `matchesNothing` for a list of no tokens.
        var lookups: [(kind: IndexEntry.Kind, condition: SQLFragment)] = []
        var matchesNothing = false
        switch positive {
        case .containsAllTokens, .containsAnyTokens:
            guard case .string(let text) = filter.value else { throw StorageError(.invalidArgument, "token filters need a STRING value") }
            let tokens = TextTokenizer.tokens(in: text).map { SQLValue.bytes(IndexKey(.text($0)).bytes) }
            if positive == .containsAllTokens {
                lookups = tokens.map { (.token, "value = \($0)") }
            } else if tokens.isEmpty {
                matchesNothing = true
            } else {
                lookups = [(.token, "value\(anyOf: tokens)")]
            }
        case .listContainsAll:
            for element in filter.value.elements {
                lookups.append((.listElement, try valueCondition(.equals, on: "value", value: element)))
            }
        case .listContains, .listContainsAny, .listMemberBeginsWith:
            let scalar: StratusModel.Comparator = positive == .listContains ? .equals : positive == .listContainsAny ? .in : .beginsWith
            lookups = [(.listElement, try valueCondition(scalar, on: "value", value: filter.value))]
        case .near:
            guard case .location(let center) = filter.value, let distance = filter.distance else {
                throw StorageError(.invalidArgument, "NEAR needs a LOCATION value and a distance")
            }
            lookups = [(.value, nearCondition(center: center, distance: distance))]
        default:
            lookups = [(.value, try valueCondition(positive, on: "value", value: filter.value))]
        }
        if lookups.isEmpty && !matchesNothing {
            // Nothing to contain: every record matches, and none matches the negation.
            if negated { conditions.append("false") }
            return
        }
        if negated, lookups.count == 1, !matchesNothing, walk == nil {
            conditions.append(lookup(lookups[0].kind, name: name, lookups[0].condition, membership: "NOT IN"))
            return
        }
        var parts = lookups.map { lookup($0.kind, name: name, $0.condition, membership: "IN") }
        if matchesNothing { parts.append("false") }
        let joined = SQLFragment.joined(parts, separator: " AND ")
        if negated {
            conditions.append("NOT (\(joined))")
        } else {
            conditions.append(joined)
            hasIndexedFilter = true
        }
    }

    /// That a record has an entry of `kind` for field `name` meeting `condition`. A walk checks each walked
    /// record through its own entries (field_index_record); lookups read the index's primary key.
    /// A search of every searchable field (`allTokens`) names no field: a token of any field will do.
    private func lookup(_ kind: IndexEntry.Kind, name: String, _ condition: SQLFragment, membership: String) -> SQLFragment {
        let everyField = name == FieldReference.allTokensName
        if walk != nil {
            let field: SQLFragment = everyField ? "" : "f.field = \(.text(name)) AND "
            return "EXISTS (SELECT 1 FROM field_index f WHERE f.record_id = r.id AND \(field)f.kind = \(raw: "\(kind.rawValue)") AND \(condition))"
        }
        let field: SQLFragment = everyField ? "" : "AND field = \(.text(name)) "
        return """
            r.id \(raw: membership) (SELECT record_id FROM field_index WHERE \(zoneCondition("zone_id")) AND type = \(.text(recordType)) \
            \(field)AND kind = \(raw: "\(kind.rawValue)") AND \(condition))
            """
    }

    /// The condition for a positive scalar comparator on `value` (index key bytes) or a record column.
    private func valueCondition(_ comparator: StratusModel.Comparator, on column: String, value: FieldValue) throws(StorageError) -> SQLFragment {
        let encoded = column == "value"
        func bound(_ value: FieldValue) throws(StorageError) -> SQLValue {
            guard let key = IndexEntry.key(for: value) else {
                throw StorageError(.invalidArgument, "values of type \(value.type.wireName) cannot be compared")
            }
            if encoded { return .bytes(IndexKey(key).bytes) }
            switch key {
            case .integer(let number): return .integer(number)
            case .double(let number): return .double(number)
            case .text(let text): return .text(text)
            }
        }
        switch comparator {
        case .equals: return "\(raw: column) = \(try bound(value))"
        case .lessThan: return "\(raw: column) < \(try bound(value))"
        case .lessThanOrEquals: return "\(raw: column) <= \(try bound(value))"
        case .greaterThan: return "\(raw: column) > \(try bound(value))"
        case .greaterThanOrEquals: return "\(raw: column) >= \(try bound(value))"
        case .in:
            let elements = value.elements
            guard !elements.isEmpty else { return "false" }
            var values: [SQLValue] = []
            for element in elements { values.append(try bound(element)) }
            return "\(raw: column)\(anyOf: values)"
        case .beginsWith:
            guard case .string(let prefix) = value else { throw StorageError(.invalidArgument, "BEGINS_WITH needs a STRING value") }
            if encoded {
                // Index keys: the text's key without its end, up to the first key past every such text.
                let start = IndexKey.textPrefix(prefix)
                guard let end = start.prefixEnd else { return "value >= \(.bytes(start.bytes))" }
                return "value >= \(.bytes(start.bytes)) AND value < \(.bytes(end.bytes))"
            }
            guard let upper = QueryBounds.upperBound(ofPrefix: prefix) else { return "\(raw: column) >= \(.text(prefix))" }
            return "\(raw: column) >= \(.text(prefix)) AND \(raw: column) < \(.text(upper))"
        default:
            throw StorageError(.invalidArgument, "\(comparator.rawValue) cannot be used on system fields")
        }
    }

    /// A bounding box on the indexed latitude (value) and longitude (extra), then the exact distance.
    private func nearCondition(center: Location, distance: Double) -> SQLFragment {
        let box = QueryBounds.box(around: center, distance: distance)
        var condition: SQLFragment = """
            value BETWEEN \(.bytes(IndexKey(.double(box.minLatitude)).bytes)) AND \(.bytes(IndexKey(.double(box.maxLatitude)).bytes))
            """
        if let (west, east, wraps) = box.longitudes {
            condition = wraps
                ? "\(condition) AND (extra >= \(.double(west)) OR extra <= \(.double(east)))"
                : "\(condition) AND extra BETWEEN \(.double(west)) AND \(.double(east))"
        }
        return """
            \(condition) AND stratus_distance(\(raw: dialect.latitudeColumn), extra, \(.double(center.latitude)), \
            \(.double(center.longitude))) <= \(.double(distance))
            """
    }

    /// Only records created by `user`.
    mutating func restrict(toCreator user: String) {
        conditions.append("r.created_by = \(.text(user))")
    }

    /// Only the given roots and the records beneath them (through `parent`) in one zone.
    mutating func restrict(toTreesUnder roots: [String], zoneID: Int64) {
        guard !roots.isEmpty else {
            conditions.append("false")
            return
        }
        conditions.append("""
            r.id IN (WITH RECURSIVE tree(id, name) AS (
                SELECT id, name FROM records WHERE zone_id = \(.integer(zoneID)) AND name\(anyOf: roots.map { .text($0) }) AND \(raw: dialect.live("records"))
                UNION SELECT c.id, c.name FROM records c JOIN tree ON c.zone_id = \(.integer(zoneID)) AND c.parent = tree.name WHERE \(raw: dialect.live("c"))
            ) SELECT id FROM tree)
            """)
    }

    // MARK: - Sorting

    mutating func add(_ sort: StratusModel.SortDescriptor) {
        switch sort.field {
        case .system(let field):
            let kind: QuerySortKey.Kind = field == .createdTimestamp || field == .modifiedTimestamp ? .integer : .text
            sortKeys.append(QuerySortKey(expression: "\(raw: column(of: field))", ascending: sort.ascending, kind: kind))
        case .field(let name):
            if let location = sort.relativeLocation {
                sortKeys.append(QuerySortKey(
                    // Records without a location sort after every distance.
                    expression: """
                        COALESCE((SELECT stratus_distance(\(raw: dialect.latitudeColumn), extra, \(.double(location.latitude)), \
                        \(.double(location.longitude))) FROM field_index WHERE record_id = r.id AND field = \(.text(name)) AND kind = 0), 1e300)
                        """,
                    ascending: sort.ascending, kind: .distance
                ))
            } else {
                sortKeys.append(QuerySortKey(
                    expression: "(SELECT value FROM field_index WHERE record_id = r.id AND field = \(.text(name)) AND kind = 0)",
                    ascending: sort.ascending, kind: .encoded
                ))
            }
        }
    }

    private func column(of field: SystemField) -> String {
        switch field {
        case .recordName: dialect.byteOrdered("r.name")
        case .createdTimestamp: "r.created_at"
        case .modifiedTimestamp: "r.modified_at"
        case .createdUserRecordName: dialect.byteOrdered("r.created_by")
        case .modifiedUserRecordName: dialect.byteOrdered("r.modified_by")
        }
    }
}
