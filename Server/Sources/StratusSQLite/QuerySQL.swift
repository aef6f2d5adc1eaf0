import Foundation
import GRDB
import StratusModel
import StratusStore

/// Builds the SQL of one query page over the records and field_index tables, as its ``QueryPlan`` says.
///
/// With ``QueryPlan/lookups``, field filters become `r.id IN (SELECT record_id FROM field_index ...)`
/// lookups on the index's primary key; when such a lookup exists, the records table's own indexes are
/// disabled with unary `+` so that SQLite drives the query from the field index instead of scanning every
/// record of the type. With ``QueryPlan/walk(_:)``, the statement reads the walked index's entries in key
/// order from a range of its primary key, joins each to its record and checks the other filters with
/// `EXISTS` on the record's own entries, so that `LIMIT` stops it after about one page.
struct QuerySQL {
    private let zoneList: String
    private let recordType: String
    private let walk: IndexWalk?
    private var conditions: [String] = []
    private var arguments = StatementArguments()
    private var hasIndexedFilter = false
    private var sortKeys: [SortKey] = []

    /// One column a page is sorted by; `encoded` keys are ``IndexKey`` bytes, the others a record column.
    private struct SortKey {
        var expression: String
        var arguments: StatementArguments
        var ascending: Bool
        var encoded: Bool
    }

    init(zoneIDs: [Int64], recordType: String, plan: QueryPlan) {
        zoneList = zoneIDs.map(String.init).joined(separator: ",")
        self.recordType = recordType
        if case .walk(let walk) = plan { self.walk = walk } else { walk = nil }
    }

    /// How many sort keys precede the record id in each row (columns `s0`, `s1`, ...).
    var sortKeyCount: Int { sortKeys.count }

    /// Whether sort key `position` is index key bytes (a BLOB) rather than a record column.
    func isEncodedSortKey(_ position: Int) -> Bool { sortKeys[position].encoded }

    // MARK: - Filters

    mutating func add(_ filter: Filter) throws(StorageError) {
        switch filter.field {
        case .system(let field): try addSystem(filter, column: Self.column(of: field))
        case .field(let name): try addField(filter, name: name)
        }
    }

    private mutating func addSystem(_ filter: Filter, column: String) throws(StorageError) {
        let positive = filter.comparator.negated ?? filter.comparator
        var (condition, values) = try Self.valueCondition(positive, on: column, value: filter.value)
        if filter.comparator.negated != nil { condition = "NOT (\(condition))" }
        conditions.append(condition)
        arguments += values
    }

    private mutating func addField(_ filter: Filter, name: String) throws(StorageError) {
        let negated = filter.comparator.negated != nil
        let positive = filter.comparator.negated ?? filter.comparator
        var lookups: [(String, StatementArguments)] = []
        let walking = walk != nil
        func lookup(kind: IndexEntry.Kind, _ condition: String, _ values: StatementArguments) {
            if walking {
                // Checked on each walked record through its own entries (field_index_record).
                lookups.append((
                    "EXISTS (SELECT 1 FROM field_index f WHERE f.record_id = r.id AND f.field = ? AND f.kind = \(kind.rawValue) AND \(condition))",
                    [name] + values
                ))
                return
            }
            lookups.append((
                "r.id IN (SELECT record_id FROM field_index WHERE zone_id IN (\(zoneList)) AND type = ? AND field = ? AND kind = \(kind.rawValue) AND \(condition))",
                [recordType, name] + values
            ))
        }
        switch positive {
        case .containsAllTokens, .containsAnyTokens:
            guard case .string(let text) = filter.value else { throw StorageError(.invalidArgument, "token filters need a STRING value") }
            let tokens = TextTokenizer.tokens(in: text).map { IndexKey(.text($0)).databaseValue }
            if positive == .containsAllTokens {
                for token in tokens { lookup(kind: .token, "value = ?", [token]) }
            } else if tokens.isEmpty {
                lookups.append(("0", []))
            } else {
                lookup(kind: .token, "value IN (\(SQLList.placeholders(tokens.count)))", StatementArguments(tokens))
            }
        case .listContainsAll:
            for element in filter.value.elements {
                let (condition, values) = try Self.valueCondition(.equals, on: "value", value: element)
                lookup(kind: .listElement, condition, values)
            }
        case .listContains, .listContainsAny, .listMemberBeginsWith:
            let scalar: Comparator = positive == .listContains ? .equals : positive == .listContainsAny ? .in : .beginsWith
            let (condition, values) = try Self.valueCondition(scalar, on: "value", value: filter.value)
            lookup(kind: .listElement, condition, values)
        case .near:
            guard case .location(let center) = filter.value, let distance = filter.distance else {
                throw StorageError(.invalidArgument, "NEAR needs a LOCATION value and a distance")
            }
            let (condition, values) = Self.nearCondition(center: center, distance: distance)
            lookup(kind: .value, condition, values)
        default:
            let (condition, values) = try Self.valueCondition(positive, on: "value", value: filter.value)
            lookup(kind: .value, condition, values)
        }
        if lookups.isEmpty {
            if negated { conditions.append("0") }
            return
        }
        let joined = lookups.map(\.0).joined(separator: " AND ")
        if negated {
            conditions.append(lookups.count == 1 && !walking ? joined.replacingOccurrences(of: "r.id IN", with: "r.id NOT IN") : "NOT (\(joined))")
        } else {
            conditions.append(joined)
            hasIndexedFilter = true
        }
        for (_, values) in lookups { arguments += values }
    }

    /// The condition for a positive scalar comparator on one column.
    private static func valueCondition(_ comparator: Comparator, on column: String, value: FieldValue) throws(StorageError) -> (String, StatementArguments) {
        func bind(_ value: FieldValue) throws(StorageError) -> DatabaseValue {
            guard let key = IndexEntry.key(for: value) else {
                throw StorageError(.invalidArgument, "values of type \(value.type.wireName) cannot be compared")
            }
            // Index entries hold IndexKey bytes; system fields are plain record columns.
            return column == "value" ? key.databaseValue : key.columnValue
        }
        switch comparator {
        case .equals: return ("\(column) = ?", [try bind(value)])
        case .lessThan: return ("\(column) < ?", [try bind(value)])
        case .lessThanOrEquals: return ("\(column) <= ?", [try bind(value)])
        case .greaterThan: return ("\(column) > ?", [try bind(value)])
        case .greaterThanOrEquals: return ("\(column) >= ?", [try bind(value)])
        case .in:
            let elements = value.elements
            guard !elements.isEmpty else { return ("0", []) }
            var values: [DatabaseValue] = []
            for element in elements { values.append(try bind(element)) }
            return ("\(column) IN (\(SQLList.placeholders(values.count)))", StatementArguments(values))
        case .beginsWith:
            guard case .string(let prefix) = value else { throw StorageError(.invalidArgument, "BEGINS_WITH needs a STRING value") }
            if column == "value" {
                // Index keys: the text's key without its end, up to the first key past every such text.
                let start = IndexKey.textPrefix(prefix)
                guard let end = start.prefixEnd else { return ("value >= ?", [start.databaseValue]) }
                return ("value >= ? AND value < ?", [start.databaseValue, end.databaseValue])
            }
            guard let upper = QueryBounds.upperBound(ofPrefix: prefix) else { return ("\(column) >= ?", [prefix]) }
            return ("\(column) >= ? AND \(column) < ?", [prefix, upper])
        default:
            throw StorageError(.invalidArgument, "\(comparator.rawValue) cannot be used on system fields")
        }
    }

    /// A bounding box on the indexed latitude (value) and longitude (extra), then the exact distance.
    private static func nearCondition(center: Location, distance: Double) -> (String, StatementArguments) {
        let box = QueryBounds.box(around: center, distance: distance)
        var condition = "value BETWEEN ? AND ?"
        var values: StatementArguments = [IndexKey(.double(box.minLatitude)).databaseValue, IndexKey(.double(box.maxLatitude)).databaseValue]
        if let (west, east, wraps) = box.longitudes {
            condition += wraps ? " AND (extra >= ? OR extra <= ?)" : " AND extra BETWEEN ? AND ?"
            values += [west, east]
        }
        condition += " AND stratus_distance(value, extra, ?, ?) <= ?"
        values += [center.latitude, center.longitude, distance]
        return (condition, values)
    }

    /// Only records created by `user`.
    mutating func restrict(toCreator user: String) {
        conditions.append("r.created_by = ?")
        arguments += [user]
    }

    /// Only the given roots and the records beneath them (through `parent`) in one zone.
    mutating func restrict(toTreesUnder roots: [String], zoneID: Int64) {
        guard !roots.isEmpty else {
            conditions.append("0")
            return
        }
        let placeholders = Array(repeating: "?", count: roots.count).joined(separator: ", ")
        conditions.append("""
            r.id IN (WITH RECURSIVE tree(id, name) AS (
                SELECT id, name FROM records WHERE zone_id = ? AND name IN (\(placeholders)) AND deleted = 0
                UNION SELECT c.id, c.name FROM records c JOIN tree ON c.zone_id = ? AND c.parent = tree.name WHERE c.deleted = 0
            ) SELECT id FROM tree)
            """)
        arguments += [zoneID] + StatementArguments(roots) + [zoneID]
    }

    // MARK: - Sorting

    mutating func add(_ sort: SortDescriptor) {
        switch sort.field {
        case .system(let field):
            sortKeys.append(SortKey(expression: Self.column(of: field), arguments: [], ascending: sort.ascending, encoded: false))
        case .field(let name):
            if let location = sort.relativeLocation {
                sortKeys.append(SortKey(
                    // Records without a location sort after every distance.
                    expression: "COALESCE((SELECT stratus_distance(value, extra, ?, ?) FROM field_index WHERE record_id = r.id AND field = ? AND kind = 0), 1e300)",
                    arguments: [location.latitude, location.longitude, name], ascending: sort.ascending, encoded: false
                ))
            } else {
                sortKeys.append(SortKey(
                    expression: "(SELECT value FROM field_index WHERE record_id = r.id AND field = ? AND kind = 0)", arguments: [name],
                    ascending: sort.ascending, encoded: true
                ))
            }
        }
    }

    /// Ties in the sort keys are broken by record id, in the direction of the last sort key, so that a walk
    /// down an index (whose entries end with the record id) and a sort of lookups give one order.
    private var idAscending: Bool { sortKeys.last?.ascending ?? true }

    // MARK: - The statement

    /// The statement for one page: rows after `cursor` in sort order, at most `limit`.
    func statement(after cursor: QueryCursor?, limit: Int) -> (sql: String, arguments: StatementArguments) {
        if let walk { return walkStatement(walk, after: cursor, limit: limit) }
        // With an indexed filter, `+` keeps SQLite from driving the query by the records table's indexes.
        let plus = hasIndexedFilter ? "+" : ""
        var whereClause = ["\(plus)r.zone_id IN (\(zoneList))", "\(plus)r.type = ?", "\(plus)r.deleted = 0"]
        whereClause += conditions
        var allArguments = StatementArguments()
        var select = "SELECT \(StoredRecordRow.columns)"
        for (index, key) in sortKeys.enumerated() {
            select += ", \(key.expression) AS s\(index)"
            allArguments += key.arguments
        }
        allArguments += [recordType]
        allArguments += arguments
        var sql = "SELECT * FROM (\(select) FROM records r WHERE \(whereClause.joined(separator: " AND ")))"
        if let cursor {
            let (condition, values) = cursorCondition(cursor)
            sql += " WHERE \(condition)"
            allArguments += values
        }
        let order = sortKeys.enumerated().map { "s\($0.offset) \($0.element.ascending ? "ASC" : "DESC")" } + ["id \(idAscending ? "ASC" : "DESC")"]
        sql += " ORDER BY \(order.joined(separator: ", ")) LIMIT \(limit)"
        return (sql, allArguments)
    }

    /// The statement of a walk: a range of the index's primary key, read in order, joined to records.
    private func walkStatement(_ walk: IndexWalk, after cursor: QueryCursor?, limit: Int) -> (sql: String, arguments: StatementArguments) {
        var select = "SELECT \(StoredRecordRow.columns)"
        var allArguments = StatementArguments()
        for (index, key) in sortKeys.enumerated() {
            select += ", \(key.expression) AS s\(index)"
            allArguments += key.arguments
        }
        var whereClause = [
            "d.zone_id IN (\(zoneList))", "d.type = ?", "d.field = ?", "d.kind = \(walk.kind.rawValue)",
        ]
        allArguments += [recordType, walk.field]
        for bound in walk.lowerBounds {
            whereClause.append("d.value >= ?")
            allArguments += [bound.databaseValue]
        }
        for bound in walk.upperBounds {
            whereClause.append("d.value < ?")
            allArguments += [bound.databaseValue]
        }
        if let cursor {
            let resume = walk.resumeKey(sortKeys: sortKeys.indices.map { cursorIndexKey(cursor, $0) })
            whereClause.append("(d.value, d.record_id) \(walk.descending ? "<" : ">") (?, ?)")
            allArguments += [resume.databaseValue, cursor.lastID]
        }
        whereClause.append("r.deleted = 0")
        whereClause += conditions
        allArguments += arguments
        let direction = walk.descending ? "DESC" : "ASC"
        let sql = """
            \(select) FROM field_index d JOIN records r ON r.id = d.record_id
            WHERE \(whereClause.joined(separator: " AND ")) ORDER BY d.value \(direction), d.record_id \(direction) LIMIT \(limit)
            """
        return (sql, allArguments)
    }

    /// The cursor's sort key at `position` as bound in SQL: index key bytes, or a record column's value.
    private func cursorValue(_ cursor: QueryCursor, _ position: Int) -> DatabaseValue {
        let key = cursor.keys[position]
        guard sortKeys[position].encoded else { return key.databaseValue }
        guard case .string(let base64) = key, let bytes = Data(base64Encoded: base64) else { return .null }
        return bytes.databaseValue
    }

    /// The cursor's sort key at `position` as an index key component (a missing value for none).
    private func cursorIndexKey(_ cursor: QueryCursor, _ position: Int) -> IndexKey {
        let value = cursorValue(cursor, position)
        switch value.storage {
        case .blob(let bytes): return IndexKey(bytes: Array(bytes))
        case .int64(let number): return IndexKey(.integer(number))
        case .double(let number): return IndexKey(.double(number))
        case .string(let text): return IndexKey(.text(text))
        case .null: return IndexKey.missing
        }
    }

    /// Rows strictly after the cursor's row in (sort keys..., id) order. NULLs sort first ascending and
    /// last descending, as SQLite orders them (and as a missing value's index key sorts).
    private func cursorCondition(_ cursor: QueryCursor) -> (String, StatementArguments) {
        let ascending = sortKeys.map(\.ascending)
        var alternatives: [String] = []
        var values = StatementArguments()
        for position in 0...ascending.count {
            var parts: [String] = []
            for earlier in 0..<position {
                let value = cursorValue(cursor, earlier)
                if value.isNull {
                    parts.append("s\(earlier) IS NULL")
                } else {
                    parts.append("s\(earlier) = ?")
                    values += [value]
                }
            }
            if position == ascending.count {
                parts.append(idAscending ? "id > ?" : "id < ?")
                values += [cursor.lastID]
            } else {
                let value = cursorValue(cursor, position)
                switch (ascending[position], value.isNull) {
                case (true, true): parts.append("s\(position) IS NOT NULL")
                case (true, false):
                    parts.append("s\(position) > ?")
                    values += [value]
                case (false, true): parts.append("0")
                case (false, false):
                    parts.append("(s\(position) < ? OR s\(position) IS NULL)")
                    values += [value]
                }
            }
            alternatives.append("(\(parts.joined(separator: " AND ")))")
        }
        return ("(\(alternatives.joined(separator: " OR ")))", values)
    }

    private static func column(of field: SystemField) -> String {
        switch field {
        case .recordName: "r.name"
        case .createdTimestamp: "r.created_at"
        case .modifiedTimestamp: "r.modified_at"
        case .createdUserRecordName: "r.created_by"
        case .modifiedUserRecordName: "r.modified_by"
        }
    }
}

extension JSONValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .double(let value): value.databaseValue
        case .string(let value): value.databaseValue
        case .bool(let value): value.databaseValue
        default: .null
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .blob(let bytes): self = .string(bytes.base64EncodedString())
        case .null: self = .null
        }
    }
}
