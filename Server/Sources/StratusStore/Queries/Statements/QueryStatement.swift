import Foundation
import StratusModel

/// The zones a query page reads.
public enum QueryZones: Sendable {
    /// Live zones the backend already read.
    case ids([Int64])
    /// One zone by name, found by the statement itself (no rows when it is not live).
    case named(ZoneRef)
}

/// One column a page is sorted by, after the record's columns in each row (`s0`, `s1`, ...).
public struct QuerySortKey: Sendable {
    /// What the column holds, to read it back and to compare a cursor with it.
    public enum Kind: Sendable {
        /// ``IndexKey`` bytes of a field.
        case encoded
        /// A record's text column (names of records and users).
        case text
        /// A record's number column (timestamps).
        case integer
        /// A distance in metres.
        case distance
    }

    var expression: SQLFragment
    public var ascending: Bool
    public var kind: Kind
}

/// The statement of one query page, written once for every backend in the dialect it was built for. Each row
/// holds ``StoredRecordRow/columns``, then the sort keys (``sortKeys``), and the statement reads one row past the
/// page, which only says that more come.
public struct QueryStatement: Sendable {
    public var statement: SQLFragment
    public var sortKeys: [QuerySortKey]
}

extension PlannedQuery {
    /// The statement of this page over `zones` in `dialect`, or `nil` when no zone can hold a match (records
    /// shared by their trees are read from one zone only).
    ///
    /// With ``QueryPlan/lookups``, field filters become `r.id IN (SELECT record_id FROM field_index ...)` lookups
    /// on the index's primary key. With ``QueryPlan/walk(_:)``, the statement reads the walked index's entries in
    /// key order from a range of its primary key, joins each to its record and checks the other filters with
    /// `EXISTS` on the record's own entries, so that `LIMIT` stops it after about one page.
    public func pageStatement(zones: QueryZones, dialect: some SQLDialect) throws(StorageError) -> QueryStatement? {
        var builder = QueryStatementBuilder(zones: zones, recordType: query.recordType, plan: plan, dialect: dialect)
        for filter in filtersToCheck { try builder.add(filter) }
        if let creator = request.createdBy { builder.restrict(toCreator: creator) }
        if let roots = request.sharedRoots {
            guard case .ids(let ids) = zones, ids.count == 1 else { return nil }
            builder.restrict(toTreesUnder: roots, zoneID: ids[0])
        }
        for sort in query.sort { builder.add(sort) }
        return QueryStatement(statement: builder.statement(after: cursor, limit: limit + 1), sortKeys: builder.sortKeys)
    }
}
