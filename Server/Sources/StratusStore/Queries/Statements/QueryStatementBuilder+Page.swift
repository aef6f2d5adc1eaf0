import Foundation

extension QueryStatementBuilder {
    /// Ties in the sort keys are broken by record id, in the direction of the last sort key, so that a walk
    /// down an index (whose entries end with the record id) and a sort of lookups give one order.
    private var idAscending: Bool { sortKeys.last?.ascending ?? true }

    /// The record's columns, then each sort key as `s0`, `s1`, ...
    private var selection: SQLFragment {
        var select: SQLFragment = "SELECT \(raw: StoredRecordRow.columns)"
        for (index, key) in sortKeys.enumerated() { select = "\(select), \(key.expression) AS s\(raw: "\(index)")" }
        return select
    }

    /// The statement for one page: rows after `cursor` in sort order, at most `limit`.
    func statement(after cursor: QueryCursor?, limit: Int) -> SQLFragment {
        if let walk { return walkStatement(walk, after: cursor, limit: limit) }
        // With an indexed filter, `+` keeps the dialect from driving the query by the records table's indexes.
        let plus = hasIndexedFilter && dialect.disablesRecordIndexesBehindLookups ? "+" : ""
        let whereClause = SQLFragment.joined(
            [zoneCondition("\(plus)r.zone_id"), "\(raw: plus)r.type = \(.text(recordType))", "\(raw: plus)\(raw: dialect.live("r"))"] + conditions,
            separator: " AND "
        )
        var sql: SQLFragment = "SELECT * FROM (\(selection) FROM records r WHERE \(whereClause)) AS page"
        if let cursor { sql = "\(sql) WHERE \(cursorCondition(cursor))" }
        let order = sortKeys.enumerated().map { "s\($0.offset) \(dialect.order(ascending: $0.element.ascending))" }
            + ["id \(idAscending ? "ASC" : "DESC")"]
        return "\(sql) ORDER BY \(raw: order.joined(separator: ", ")) LIMIT \(raw: "\(limit)")"
    }

    /// The statement of a walk: a range of the index's primary key, read in order, joined to records.
    private func walkStatement(_ walk: IndexWalk, after cursor: QueryCursor?, limit: Int) -> SQLFragment {
        var whereClause: [SQLFragment] = [
            zoneCondition("d.zone_id"), "d.type = \(.text(recordType))", "d.field = \(.text(walk.field))",
            "d.kind = \(raw: "\(walk.kind.rawValue)")",
        ]
        whereClause += walk.lowerBounds.map { "d.value >= \(.bytes($0.bytes))" }
        whereClause += walk.upperBounds.map { "d.value < \(.bytes($0.bytes))" }
        if let cursor {
            let resume = walk.resumeKey(sortKeys: sortKeys.indices.map { cursorIndexKey(cursor, $0) })
            whereClause.append("(d.value, d.record_id) \(raw: walk.descending ? "<" : ">") (\(.bytes(resume.bytes)), \(.integer(cursor.lastID)))")
        }
        whereClause.append("\(raw: dialect.live("r"))")
        whereClause += conditions
        let direction = walk.descending ? "DESC" : "ASC"
        return """
            \(selection) FROM field_index d JOIN records r ON r.id = d.record_id
            WHERE \(SQLFragment.joined(whereClause, separator: " AND ")) ORDER BY d.value \(raw: direction), d.record_id \(raw: direction) LIMIT \(raw: "\(limit)")
            """
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

    /// A cursor's sort key at `position` as its column holds it, or `nil` for a missing value.
    private func cursorValue(_ cursor: QueryCursor, _ position: Int) -> SQLValue? {
        switch (sortKeys[position].kind, cursor.keys[position]) {
        case (.encoded, .string(let base64)): return Data(base64Encoded: base64).map { .bytes(Array($0)) }
        case (.integer, .integer(let number)): return .integer(number)
        case (.distance, .double(let number)): return .double(number)
        case (.distance, .integer(let number)): return .double(Double(number))
        case (.text, .string(let text)): return .text(text)
        default: return nil
        }
    }

    /// Rows strictly after the cursor's row in (sort keys..., id) order. `NULL` sorts first ascending and last
    /// descending, as a missing value's index key sorts.
    private func cursorCondition(_ cursor: QueryCursor) -> SQLFragment {
        var alternatives: [SQLFragment] = []
        for position in 0...sortKeys.count {
            var parts: [SQLFragment] = []
            for earlier in 0..<position {
                let key = "s\(earlier)"
                parts.append(cursorValue(cursor, earlier).map { "\(raw: key) = \($0)" } ?? "\(raw: key) IS NULL")
            }
            if position == sortKeys.count {
                parts.append("id \(raw: idAscending ? ">" : "<") \(.integer(cursor.lastID))")
            } else {
                let key = "s\(position)"
                switch (sortKeys[position].ascending, cursorValue(cursor, position)) {
                case (true, nil): parts.append("\(raw: key) IS NOT NULL")
                case (true, let value?): parts.append("\(raw: key) > \(value)")
                case (false, nil): parts.append("false")
                case (false, let value?): parts.append("(\(raw: key) < \(value) OR \(raw: key) IS NULL)")
                }
            }
            alternatives.append("(\(SQLFragment.joined(parts, separator: " AND ")))")
        }
        return "(\(SQLFragment.joined(alternatives, separator: " OR ")))"
    }
}
