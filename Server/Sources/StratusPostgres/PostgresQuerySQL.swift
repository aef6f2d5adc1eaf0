import Foundation
import PostgresNIO
import StratusModel
import StratusStore

/// Builds the SQL of one query page over the records and field_index tables, as its ``QueryPlan`` says; the
/// PostgreSQL twin of the SQLite store's builder, with the same order of results.
///
/// With ``QueryPlan/lookups``, field filters become `r.id IN (SELECT record_id FROM field_index ...)` lookups.
/// With ``QueryPlan/walk(_:)``, the statement reads the walked index's entries in key order from a range of
/// its primary key, joins each to its record and checks the other filters with `EXISTS` on the record's own
/// entries, so that `LIMIT` stops it after about one page. Index keys are `bytea`, compared bytewise, and the
/// records' text columns are compared and sorted `COLLATE "C"`, so both sort as SQLite sorts them. `NULL` sorts first ascending
/// and last descending, as in SQLite.
struct PostgresQuerySQL {
    /// The zones a query reads.
    enum Zones {
        /// Live zones already read.
        case rows([ZoneRow])
        /// One zone by name, found by the statement itself (`NULL`, and so no rows, when it is not live).
        case named(ZoneRef)
    }

    private let zones: Zones
    /// The SQL that stands for the zone id(s), bound on first use: `= $n`, `= ANY($n)` or `= (SELECT id ...)`.
    private var zoneMatch: String?
    private let recordType: String
    private let walk: IndexWalk?
    private var conditions: [String] = []
    private(set) var bindings = PostgresBindings()
    /// The Swift type of each bound value, in order: with the SQL, what a prepared statement is kept for.
    private(set) var boundTypes: [String] = []
    private(set) var sortKeys: [SortKey] = []

    /// What a sort key's column holds, to read it back and to compare a cursor with it.
    enum SortKind {
        /// ``IndexKey`` bytes of a field.
        case encoded
        /// A record's text column (names of records and users).
        case text
        /// A record's number column (timestamps).
        case integer
        /// A distance in metres.
        case distance
    }

    /// One column a page is sorted by.
    struct SortKey {
        var expression: String
        var ascending: Bool
        var kind: SortKind
    }

    init(zones: Zones, recordType: String, plan: QueryPlan) {
        self.zones = zones
        self.recordType = recordType
        if case .walk(let walk) = plan { self.walk = walk } else { walk = nil }
    }

    /// Binds a value and returns its parameter (`$n`).
    private mutating func bind<Value: PostgresThrowingDynamicTypeEncodable>(_ value: Value) -> String {
        try? bindings.append(value)
        boundTypes.append(String(describing: Value.self))
        return "$\(bindings.count)"
    }

    /// `column` restricted to the query's zones. Zones are bound, never written into the text, so that every
    /// zone's queries of one shape share a prepared statement.
    private mutating func zoneCondition(_ column: String) -> String {
        if zoneMatch == nil {
            switch zones {
            case .rows(let rows) where rows.count == 1:
                zoneMatch = "= \(bind(rows[0].id))"
            case .rows(let rows):
                zoneMatch = "= ANY(\(bind(rows.map(\.id))))"
            case .named(let zone):
                let database = zone.database
                zoneMatch = """
                    = (SELECT id FROM zones WHERE container_id = \(bind(database.containerID)) \
                    AND environment = \(bind(database.environment.rawValue)) AND scope = \(bind(database.scope.rawValue)) \
                    AND owner = \(bind(database.ownerRecordName)) AND name = \(bind(zone.zoneName)) AND NOT deleted)
                    """
            }
        }
        return "\(column) \(zoneMatch!)"
    }

    private mutating func bind(_ key: IndexKey) -> String {
        bind(ByteBuffer(bytes: key.bytes))
    }

    /// Binds a value as a record column compares it (system fields).
    private mutating func bind(column key: IndexEntry.Key) -> String {
        switch key {
        case .integer(let value): bind(value)
        case .double(let value): bind(value)
        case .text(let value): bind(value)
        }
    }

    // MARK: - Filters

    mutating func add(_ filter: Filter) throws(StorageError) {
        switch filter.field {
        case .system(let field): try addSystem(filter, column: Self.column(of: field))
        case .field(let name): try addField(filter, name: name)
        }
    }

    private mutating func addSystem(_ filter: Filter, column: String) throws(StorageError) {
        let positive = filter.comparator.negated ?? filter.comparator
        var condition = try valueCondition(positive, on: column, value: filter.value)
        if filter.comparator.negated != nil { condition = "NOT (\(condition))" }
        conditions.append(condition)
    }

    private mutating func addField(_ filter: Filter, name: String) throws(StorageError) {
        let negated = filter.comparator.negated != nil
        let positive = filter.comparator.negated ?? filter.comparator
        var lookups: [String] = []
        let walking = walk != nil
        let recordType = recordType
        func lookup(kind: IndexEntry.Kind, _ condition: String, _ builder: inout PostgresQuerySQL) {
            let field = builder.bind(name)
            if walking {
                // Checked on each walked record through its own entries (field_index_record).
                lookups.append("EXISTS (SELECT 1 FROM field_index f WHERE f.record_id = r.id AND f.field = \(field) AND f.kind = \(kind.rawValue) AND \(condition))")
                return
            }
            let zone = builder.zoneCondition("zone_id")
            let type = builder.bind(recordType)
            lookups.append(
                "r.id IN (SELECT record_id FROM field_index WHERE \(zone) AND type = \(type) AND field = \(field) AND kind = \(kind.rawValue) AND \(condition))"
            )
        }
        switch positive {
        case .containsAllTokens, .containsAnyTokens:
            guard case .string(let text) = filter.value else { throw StorageError(.invalidArgument, "token filters need a STRING value") }
            let tokens = TextTokenizer.tokens(in: text).map { IndexKey(.text($0)) }
            if positive == .containsAllTokens {
                for token in tokens {
                    let condition = "value = \(bind(token))"
                    lookup(kind: .token, condition, &self)
                }
            } else if tokens.isEmpty {
                lookups.append("false")
            } else {
                let condition = "value = ANY(\(bind(tokens.map { ByteBuffer(bytes: $0.bytes) })))"
                lookup(kind: .token, condition, &self)
            }
        case .listContainsAll:
            for element in filter.value.elements {
                let condition = try valueCondition(.equals, on: "value", value: element)
                lookup(kind: .listElement, condition, &self)
            }
        case .listContains, .listContainsAny, .listMemberBeginsWith:
            let scalar: StratusModel.Comparator = positive == .listContains ? .equals : positive == .listContainsAny ? .in : .beginsWith
            let condition = try valueCondition(scalar, on: "value", value: filter.value)
            lookup(kind: .listElement, condition, &self)
        case .near:
            guard case .location(let center) = filter.value, let distance = filter.distance else {
                throw StorageError(.invalidArgument, "NEAR needs a LOCATION value and a distance")
            }
            let condition = nearCondition(center: center, distance: distance)
            lookup(kind: .value, condition, &self)
        default:
            let condition = try valueCondition(positive, on: "value", value: filter.value)
            lookup(kind: .value, condition, &self)
        }
        if lookups.isEmpty {
            if negated { conditions.append("false") }
            return
        }
        let joined = lookups.joined(separator: " AND ")
        if negated {
            conditions.append(lookups.count == 1 && !walking ? joined.replacingOccurrences(of: "r.id IN", with: "r.id NOT IN") : "NOT (\(joined))")
        } else {
            conditions.append(joined)
        }
    }

    /// The condition for a positive scalar comparator on one column: `value` (index keys) or a record column.
    private mutating func valueCondition(_ comparator: StratusModel.Comparator, on column: String, value: FieldValue) throws(StorageError) -> String {
        func key(_ value: FieldValue) throws(StorageError) -> IndexEntry.Key {
            guard let key = IndexEntry.key(for: value) else {
                throw StorageError(.invalidArgument, "values of type \(value.type.wireName) cannot be compared")
            }
            return key
        }
        let encoded = column == "value"
        func parameter(_ value: FieldValue, _ builder: inout PostgresQuerySQL) throws(StorageError) -> String {
            let key = try key(value)
            return encoded ? builder.bind(IndexKey(key)) : builder.bind(column: key)
        }
        switch comparator {
        case .equals: return "\(column) = \(try parameter(value, &self))"
        case .lessThan: return "\(column) < \(try parameter(value, &self))"
        case .lessThanOrEquals: return "\(column) <= \(try parameter(value, &self))"
        case .greaterThan: return "\(column) > \(try parameter(value, &self))"
        case .greaterThanOrEquals: return "\(column) >= \(try parameter(value, &self))"
        case .in:
            let elements = value.elements
            guard !elements.isEmpty else { return "false" }
            var parameters: [String] = []
            for element in elements { parameters.append(try parameter(element, &self)) }
            return "\(column) IN (\(parameters.joined(separator: ", ")))"
        case .beginsWith:
            guard case .string(let prefix) = value else { throw StorageError(.invalidArgument, "BEGINS_WITH needs a STRING value") }
            if encoded {
                let start = IndexKey.textPrefix(prefix)
                guard let end = start.prefixEnd else { return "value >= \(bind(start))" }
                return "value >= \(bind(start)) AND value < \(bind(end))"
            }
            guard let upper = QueryBounds.upperBound(ofPrefix: prefix) else { return "\(column) >= \(bind(prefix))" }
            return "\(column) >= \(bind(prefix)) AND \(column) < \(bind(upper))"
        default:
            throw StorageError(.invalidArgument, "\(comparator.rawValue) cannot be used on system fields")
        }
    }

    /// A bounding box on the indexed latitude (value) and longitude (extra), then the exact distance.
    private mutating func nearCondition(center: Location, distance: Double) -> String {
        let box = QueryBounds.box(around: center, distance: distance)
        var condition = "value BETWEEN \(bind(IndexKey(.double(box.minLatitude)))) AND \(bind(IndexKey(.double(box.maxLatitude))))"
        if let (west, east, wraps) = box.longitudes {
            condition += wraps ? " AND (extra >= \(bind(west)) OR extra <= \(bind(east)))" : " AND extra BETWEEN \(bind(west)) AND \(bind(east))"
        }
        condition += " AND stratus_distance(number, extra, \(bind(center.latitude)), \(bind(center.longitude))) <= \(bind(distance))"
        return condition
    }

    /// Only records created by `user`.
    mutating func restrict(toCreator user: String) {
        conditions.append("r.created_by = \(bind(user))")
    }

    /// Only the given roots and the records beneath them (through `parent`) in one zone.
    mutating func restrict(toTreesUnder roots: [String], zoneID: Int64) {
        guard !roots.isEmpty else {
            conditions.append("false")
            return
        }
        let zone = bind(zoneID)
        conditions.append("""
            r.id IN (WITH RECURSIVE tree(id, name) AS (
                SELECT id, name FROM records WHERE zone_id = \(zone) AND name = ANY(\(bind(roots))) AND NOT deleted
                UNION SELECT c.id, c.name FROM records c JOIN tree ON c.zone_id = \(zone) AND c.parent = tree.name WHERE NOT c.deleted
            ) SELECT id FROM tree)
            """)
    }

    // MARK: - Sorting

    mutating func add(_ sort: StratusModel.SortDescriptor) {
        switch sort.field {
        case .system(let field):
            let kind: SortKind = field == .createdTimestamp || field == .modifiedTimestamp ? .integer : .text
            sortKeys.append(SortKey(expression: Self.column(of: field), ascending: sort.ascending, kind: kind))
        case .field(let name):
            if let location = sort.relativeLocation {
                sortKeys.append(SortKey(
                    // Records without a location sort after every distance.
                    expression: """
                        COALESCE((SELECT stratus_distance(number, extra, \(bind(location.latitude)), \(bind(location.longitude))) FROM field_index
                            WHERE record_id = r.id AND field = \(bind(name)) AND kind = 0), 1e300)
                        """,
                    ascending: sort.ascending, kind: .distance
                ))
            } else {
                sortKeys.append(SortKey(
                    expression: "(SELECT value FROM field_index WHERE record_id = r.id AND field = \(bind(name)) AND kind = 0)",
                    ascending: sort.ascending, kind: .encoded
                ))
            }
        }
    }

    /// Ties in the sort keys are broken by record id, in the direction of the last sort key.
    private var idAscending: Bool { sortKeys.last?.ascending ?? true }

    private func order(_ ascending: Bool) -> String { ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST" }

    // MARK: - The statement

    /// The statement for one page: rows after `cursor` in sort order, at most `limit`. Each row has the
    /// record's columns, then the sort keys `s0`, `s1`, ...
    mutating func statement(after cursor: QueryCursor?, limit: Int) -> PostgresQuery {
        if let walk { return walkStatement(walk, after: cursor, limit: limit) }
        var whereClause = [zoneCondition("r.zone_id"), "r.type = \(bind(recordType))", "NOT r.deleted"]
        whereClause += conditions
        var select = "SELECT \(StoredRecordRow.columns)"
        for (index, key) in sortKeys.enumerated() { select += ", \(key.expression) AS s\(index)" }
        var sql = "SELECT * FROM (\(select) FROM records r WHERE \(whereClause.joined(separator: " AND "))) AS page"
        if let cursor { sql += " WHERE \(cursorCondition(cursor))" }
        let ordering = sortKeys.enumerated().map { "s\($0.offset) \(order($0.element.ascending))" } + ["id \(idAscending ? "ASC" : "DESC")"]
        sql += " ORDER BY \(ordering.joined(separator: ", ")) LIMIT \(limit)"
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// The statement of a walk: a range of the index's primary key, read in order, joined to records.
    private mutating func walkStatement(_ walk: IndexWalk, after cursor: QueryCursor?, limit: Int) -> PostgresQuery {
        var select = "SELECT \(StoredRecordRow.columns)"
        for (index, key) in sortKeys.enumerated() { select += ", \(key.expression) AS s\(index)" }
        var whereClause = [
            zoneCondition("d.zone_id"), "d.type = \(bind(recordType))", "d.field = \(bind(walk.field))", "d.kind = \(walk.kind.rawValue)",
        ]
        for bound in walk.lowerBounds { whereClause.append("d.value >= \(bind(bound))") }
        for bound in walk.upperBounds { whereClause.append("d.value < \(bind(bound))") }
        if let cursor {
            let resume = walk.resumeKey(sortKeys: sortKeys.indices.map { cursorIndexKey(cursor, $0) })
            whereClause.append("(d.value, d.record_id) \(walk.descending ? "<" : ">") (\(bind(resume)), \(bind(cursor.lastID)))")
        }
        whereClause.append("NOT r.deleted")
        whereClause += conditions
        let direction = walk.descending ? "DESC" : "ASC"
        let sql = """
            \(select) FROM field_index d JOIN records r ON r.id = d.record_id
            WHERE \(whereClause.joined(separator: " AND ")) ORDER BY d.value \(direction), d.record_id \(direction) LIMIT \(limit)
            """
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// A cursor's sort key at `position` as a component of an index key (a missing value for none).
    private func cursorIndexKey(_ cursor: QueryCursor, _ position: Int) -> IndexKey {
        switch (sortKeys[position].kind, cursor.keys[position]) {
        case (.encoded, .string(let base64)): return Data(base64Encoded: base64).map { IndexKey(bytes: Array($0)) } ?? .missing
        case (_, .integer(let number)): return IndexKey(.integer(number))
        case (_, .double(let number)): return IndexKey(.double(number))
        case (_, .string(let text)): return IndexKey(.text(text))
        default: return .missing
        }
    }

    /// Binds a cursor's sort key at `position` as its column holds it, or returns `nil` for a missing value.
    private mutating func bindCursorKey(_ cursor: QueryCursor, _ position: Int) -> String? {
        switch (sortKeys[position].kind, cursor.keys[position]) {
        case (.encoded, .string(let base64)): return Data(base64Encoded: base64).map { bind(ByteBuffer(bytes: $0)) }
        case (.integer, .integer(let number)): return bind(number)
        case (.distance, .double(let number)): return bind(number)
        case (.distance, .integer(let number)): return bind(Double(number))
        case (.text, .string(let text)): return bind(text)
        default: return nil
        }
    }

    /// Rows strictly after the cursor's row in (sort keys..., id) order.
    private mutating func cursorCondition(_ cursor: QueryCursor) -> String {
        let ascending = sortKeys.map(\.ascending)
        var alternatives: [String] = []
        for position in 0...ascending.count {
            var parts: [String] = []
            for earlier in 0..<position {
                if let value = bindCursorKey(cursor, earlier) {
                    parts.append("s\(earlier) = \(value)")
                } else {
                    parts.append("s\(earlier) IS NULL")
                }
            }
            if position == ascending.count {
                parts.append(idAscending ? "id > \(bind(cursor.lastID))" : "id < \(bind(cursor.lastID))")
            } else {
                let value = bindCursorKey(cursor, position)
                switch (ascending[position], value) {
                case (true, nil): parts.append("s\(position) IS NOT NULL")
                case (true, let value?): parts.append("s\(position) > \(value)")
                case (false, nil): parts.append("false")
                case (false, let value?): parts.append("(s\(position) < \(value) OR s\(position) IS NULL)")
                }
            }
            alternatives.append("(\(parts.joined(separator: " AND ")))")
        }
        return "(\(alternatives.joined(separator: " OR ")))"
    }

    private static func column(of field: SystemField) -> String {
        switch field {
        case .recordName: #"r.name COLLATE "C""#
        case .createdTimestamp: "r.created_at"
        case .modifiedTimestamp: "r.modified_at"
        case .createdUserRecordName: #"r.created_by COLLATE "C""#
        case .modifiedUserRecordName: #"r.modified_by COLLATE "C""#
        }
    }
}
