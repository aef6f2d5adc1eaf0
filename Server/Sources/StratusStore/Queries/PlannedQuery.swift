import StratusModel

/// A query page as a backend runs it: typed against the schema, its ``QueryPlan`` chosen and its continuation
/// marker checked, by the store once (``RecordStore/queryRecords(_:)``). A backend only turns it into a statement.
public struct PlannedQuery: Sendable {
    /// The request as the caller made it: the database, the zone, and what restricts the caller.
    public var request: RecordQuery
    /// The typed query.
    public var query: Query
    /// The decoded continuation marker, checked to belong to this query.
    public var cursor: QueryCursor?
    /// Records per page, within ``RecordLimits/maximumResults``.
    public var limit: Int
    /// How the page is read (the same for every page: cursors do not depend on it).
    public var plan: QueryPlan

    public var zoneName: String? { request.zoneName }
    public var sharedRoots: [String]? { request.sharedRoots }

    /// Names the query in its continuation markers.
    public var fingerprint: UInt64 { QueryCursor.fingerprint(of: query, zoneName: zoneName, sharedRoots: sharedRoots) }

    /// Plans a typed query against its record type as the schema has it, and the indexes being built.
    /// - Throws: ``StorageError/Code/invalidArgument`` for a marker of another query.
    public init(_ request: RecordQuery, typed: Query, type: RecordTypeSchema?, building: Set<String>) throws(StorageError) {
        self.request = request
        query = typed
        limit = max(1, min(request.limit, RecordLimits.maximumResults))
        plan = QueryPlanner.plan(typed, type: type, building: building)
        if let marker = request.continuationMarker {
            let cursor = try QueryCursor.read(marker)
            // The marker comes from the client: its shape must fit the query before a statement uses it.
            guard cursor.fingerprint == QueryCursor.fingerprint(of: typed, zoneName: request.zoneName, sharedRoots: request.sharedRoots),
                cursor.keys.count == typed.sort.count
            else {
                throw StorageError(.invalidArgument, "continuationMarker belongs to another query; send it with the query that returned it")
            }
            self.cursor = cursor
        }
    }

    /// The filters a statement checks itself: all of them for lookups, those the walked index's range does not
    /// already guarantee for a walk.
    public var filtersToCheck: [Filter] {
        if case .walk(let walk) = plan { return walk.residualFilters }
        return query.filters
    }
}

/// Bounds of text and places that query statements compare with, the same in every backend.
public enum QueryBounds {
    /// The smallest string greater than every string that starts with `prefix`, in UTF-8 byte order; `nil`
    /// when there is none.
    public static func upperBound(ofPrefix prefix: String) -> String? {
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

    /// A box around every point within `distance` metres of `center`: the latitudes, and the longitudes
    /// (`nil`: any); a box crossing the antimeridian has `wraps` set and its west edge above its east edge.
    public struct Box: Sendable {
        public var minLatitude: Double
        public var maxLatitude: Double
        public var longitudes: (west: Double, east: Double, wraps: Bool)?
    }

    /// The bounding box of a `NEAR` filter, which an index narrows before the exact distance is checked.
    public static func box(around center: Location, distance: Double) -> Box {
        let metresPerDegree = 111_194.93
        let latitudeDelta = distance / metresPerDegree
        var box = Box(minLatitude: center.latitude - latitudeDelta, maxLatitude: center.latitude + latitudeDelta, longitudes: nil)
        let widest = max(abs(box.minLatitude), abs(box.maxLatitude))
        guard widest < 90 else { return box }
        let longitudeDelta = latitudeDelta / cos(widest * .pi / 180)
        guard longitudeDelta < 180 else { return box }
        let west = center.longitude - longitudeDelta
        let east = center.longitude + longitudeDelta
        if west < -180 {
            box.longitudes = (west + 360, east, true)
        } else if east > 180 {
            box.longitudes = (west, east - 360, true)
        } else {
            box.longitudes = (west, east, false)
        }
        return box
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
