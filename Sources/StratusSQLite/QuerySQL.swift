import Foundation
import GRDB
import StratusModel
import StratusStore

/// Builds the SQL of one query page over the records and field_index tables.
///
/// Field filters become `r.id IN (SELECT record_id FROM field_index ...)` lookups on the index's
/// primary key. When such a lookup exists, the records table's own indexes are disabled with unary `+`
/// so that SQLite drives the query from the field index instead of scanning every record of the type.
struct QuerySQL {
    private let zoneList: String
    private let recordType: String
    private var conditions: [String] = []
    private var arguments = StatementArguments()
    private var hasIndexedFilter = false
    private var sortKeys: [(expression: String, arguments: StatementArguments, ascending: Bool)] = []

    init(zoneIDs: [Int64], recordType: String) {
        zoneList = zoneIDs.map(String.init).joined(separator: ",")
        self.recordType = recordType
    }

    /// How many sort keys precede the record id in each row (columns `s0`, `s1`, ...).
    var sortKeyCount: Int { sortKeys.count }

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
        func lookup(kind: IndexEntry.Kind, _ condition: String, _ values: StatementArguments) {
            lookups.append((
                "r.id IN (SELECT record_id FROM field_index WHERE zone_id IN (\(zoneList)) AND type = ? AND field = ? AND kind = \(kind.rawValue) AND \(condition))",
                [recordType, name] + values
            ))
        }
        switch positive {
        case .containsAllTokens, .containsAnyTokens:
            guard case .string(let text) = filter.value else { throw StorageError(.invalidArgument, "token filters need a STRING value") }
            let tokens = TextTokenizer.tokens(in: text)
            if positive == .containsAllTokens {
                for token in tokens { lookup(kind: .token, "value = ?", [token]) }
            } else if tokens.isEmpty {
                lookups.append(("0", []))
            } else {
                lookup(kind: .token, "value IN (\(Self.placeholders(tokens.count)))", StatementArguments(tokens))
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
            conditions.append(lookups.count == 1 ? joined.replacingOccurrences(of: "r.id IN", with: "r.id NOT IN") : "NOT (\(joined))")
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
            return key.databaseValue
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
            return ("\(column) IN (\(placeholders(values.count)))", StatementArguments(values))
        case .beginsWith:
            guard case .string(let prefix) = value else { throw StorageError(.invalidArgument, "BEGINS_WITH needs a STRING value") }
            guard let upper = upperBound(ofPrefix: prefix) else { return ("\(column) >= ?", [prefix]) }
            return ("\(column) >= ? AND \(column) < ?", [prefix, upper])
        default:
            throw StorageError(.invalidArgument, "\(comparator.rawValue) cannot be used on system fields")
        }
    }

    /// The smallest string greater than every string that starts with `prefix`, in UTF-8 byte order.
    static func upperBound(ofPrefix prefix: String) -> String? {
        var scalars = Array(prefix.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars)
                return String(view)
            }
        }
        return nil
    }

    /// A bounding box on the indexed latitude (value) and longitude (extra), then the exact distance.
    private static func nearCondition(center: Location, distance: Double) -> (String, StatementArguments) {
        let metresPerDegree = 111_194.93
        let latitudeDelta = distance / metresPerDegree
        let minLatitude = center.latitude - latitudeDelta
        let maxLatitude = center.latitude + latitudeDelta
        var condition = "value BETWEEN ? AND ?"
        var values: StatementArguments = [minLatitude, maxLatitude]
        let widest = max(abs(minLatitude), abs(maxLatitude))
        if widest < 90 {
            let longitudeDelta = latitudeDelta / cos(widest * .pi / 180)
            if longitudeDelta < 180 {
                let west = center.longitude - longitudeDelta
                let east = center.longitude + longitudeDelta
                if west < -180 {
                    condition += " AND (extra >= ? OR extra <= ?)"
                    values += [west + 360, east]
                } else if east > 180 {
                    condition += " AND (extra >= ? OR extra <= ?)"
                    values += [west, east - 360]
                } else {
                    condition += " AND extra BETWEEN ? AND ?"
                    values += [west, east]
                }
            }
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
            sortKeys.append((Self.column(of: field), [], sort.ascending))
        case .field(let name):
            if let location = sort.relativeLocation {
                sortKeys.append((
                    // Records without a location sort after every distance.
                    "COALESCE((SELECT stratus_distance(value, extra, ?, ?) FROM field_index WHERE record_id = r.id AND field = ? AND kind = 0), 1e300)",
                    [location.latitude, location.longitude, name], sort.ascending
                ))
            } else {
                sortKeys.append((
                    "(SELECT value FROM field_index WHERE record_id = r.id AND field = ? AND kind = 0)", [name], sort.ascending
                ))
            }
        }
    }

    // MARK: - The statement

    /// The statement for one page: rows after `cursor` in sort order, at most `limit`.
    func statement(after cursor: QueryCursor?, limit: Int) -> (sql: String, arguments: StatementArguments) {
        // With an indexed filter, `+` keeps SQLite from driving the query by the records table's indexes.
        let plus = hasIndexedFilter ? "+" : ""
        var whereClause = ["\(plus)r.zone_id IN (\(zoneList))", "\(plus)r.type = ?", "\(plus)r.deleted = 0"]
        whereClause += conditions
        var allArguments = StatementArguments()
        var select = "SELECT \(RecordRow.columns)"
        for (index, key) in sortKeys.enumerated() {
            select += ", \(key.expression) AS s\(index)"
            allArguments += key.arguments
        }
        allArguments += [recordType]
        allArguments += arguments
        var sql = "SELECT * FROM (\(select) FROM records r WHERE \(whereClause.joined(separator: " AND ")))"
        if let cursor {
            let (condition, values) = Self.cursorCondition(cursor, keys: sortKeys.map(\.ascending))
            sql += " WHERE \(condition)"
            allArguments += values
        }
        let order = sortKeys.enumerated().map { "s\($0.offset) \($0.element.ascending ? "ASC" : "DESC")" } + ["id ASC"]
        sql += " ORDER BY \(order.joined(separator: ", ")) LIMIT \(limit)"
        return (sql, allArguments)
    }

    /// Rows strictly after the cursor's row in (sort keys..., id) order. NULLs sort first ascending and
    /// last descending, as SQLite orders them.
    private static func cursorCondition(_ cursor: QueryCursor, keys ascending: [Bool]) -> (String, StatementArguments) {
        var alternatives: [String] = []
        var values = StatementArguments()
        for position in 0...ascending.count {
            var parts: [String] = []
            for earlier in 0..<position {
                let value = cursor.keys[earlier].databaseValue
                if value.isNull {
                    parts.append("s\(earlier) IS NULL")
                } else {
                    parts.append("s\(earlier) = ?")
                    values += [value]
                }
            }
            if position == ascending.count {
                parts.append("id > ?")
                values += [cursor.lastID]
            } else {
                let value = cursor.keys[position].databaseValue
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

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ",")
    }
}

/// Where a query page ended: the last row's sort keys and id, and which query it belongs to.
struct QueryCursor: Codable {
    var fingerprint: UInt64
    var keys: [JSONValue]
    var lastID: Int64

    enum CodingKeys: String, CodingKey {
        case fingerprint = "f", keys = "k", lastID = "i"
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
        case .null, .blob: self = .null
        }
    }
}
