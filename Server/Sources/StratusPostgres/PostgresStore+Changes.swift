import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// Change feeds read settled positions only (see ``ChangePosition``), so a token never moves past a change
/// that a writer still in its transaction will commit.
extension PostgresStore {
    public func databaseChanges(in database: DatabaseRef, since syncToken: String?, limit: Int) async throws -> DatabaseChanges {
        let since = try DatabaseSyncToken.read(syncToken).sequence
        let bound = ChangePosition.settledBoundSQL(offset: positionOffset)
        return try await readSettled { connection in
            let all = try await connection.rows(
                PostgresQuery(
                    unsafeSQL: """
                        WITH b AS MATERIALIZED (SELECT \(bound) AS bound)
                        SELECT z.name, z.deleted,
                            GREATEST(z.seq, COALESCE((SELECT MAX(seq) FROM records WHERE zone_id = z.id AND seq < b.bound), 0)),
                            z.seq < b.bound,
                            z.seq >= b.bound OR (SELECT seq FROM records WHERE zone_id = z.id AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL
                        FROM zones z, b
                        WHERE z.container_id = $1 AND z.environment = $2 AND z.scope = $3 AND z.owner = $4
                        """,
                    binds: try binds(database.containerID, database.environment.rawValue, database.scope.rawValue, database.ownerRecordName)
                ),
                as: (String, Bool, Int64, Bool, Bool).self, logger: self.logger
            )
            let unsettled = all.contains { $0.4 }
            // A zone whose own row's change is not settled yet is reported by a later sync.
            let rows = all.filter(\.3).map { ($0.0, $0.1, $0.2) }
            let zones = rows.map { ChangeFeeds.ZoneState(name: $0.0, deleted: $0.1, lastChange: $0.2) }
            return (ChangeFeeds.databaseChanges(zones, in: database, since: since, limit: limit), unsettled)
        }
    }

    public func zoneChanges(_ query: ZoneChangesQuery) async throws -> ZoneChanges {
        let token = try query.syncToken.map { token throws(StorageError) in try ZoneSyncToken.read(token) }
        return try await readSettled { connection in
            guard let zone = try await Self.liveZone(query.zone, connection: connection, logger: self.logger) else {
                guard query.zone.isDefault else { throw ZoneRules.missing(query.zone.zoneName) }
                return (ChangeFeeds.emptyDefaultZone, false)
            }
            let since = try ChangeFeeds.start(after: token, inZone: zone.id)
            // One statement: the rows, and the zone's last settled change, from one snapshot.
            let bindings = try binds(zone.id, since, Int64(ChangeFeeds.scanLimit(for: query) + 1), self.positionOffset)
            var rows: [(record: StoredRecordRow, position: Int64)] = []
            var lastSettled: Int64 = 0
            var unsettled = false
            for row in try await connection.rows(ZoneChangesPage.self, bindings, logger: self.logger) {
                let cells = Array(row)
                lastSettled = try cells[17].decode(Int64?.self) ?? 0
                unsettled = try cells[18].decode(Bool.self)
                guard try cells[0].decode(Int64?.self) != nil else { continue }
                rows.append((try StoredRecordRow(row: row), try cells[16].decode(Int64.self)))
            }
            let page = ChangeFeeds.page(of: rows.map { ($0.record.type, $0.position) }, since: since, query: query)
            var changes: [RecordChange] = []
            for index in page.rows {
                let record = rows[index].record
                if record.deleted {
                    changes.append(.deleted(DeletedRecord(recordName: record.name, recordType: record.type, zoneID: query.zone.wireZoneID)))
                } else {
                    changes.append(.saved(try await record.record(in: query.zone.wireZoneID, connection: connection, logger: self.logger)))
                }
            }
            let last = page.moreComing ? page.lastPosition : max(page.lastPosition, lastSettled)
            return (ZoneChanges(changes: changes, syncToken: ZoneSyncToken(zone: zone.id, sequence: last).text, moreComing: page.moreComing), unsettled)
        }
    }
}

/// A page of a zone's settled changes after `$2` (at most `$3` rows), with the zone's last settled change and
/// whether later changes are still unsettled, from one snapshot. `$4` is the position offset. The bound and the
/// zone's figures are computed once (`s`), not once per row of the page.
private enum ZoneChangesPage: PreparedText {
    static let name = "zone_changes_page"
    static let sql = """
        WITH b AS MATERIALIZED (SELECT stratus_settled_bound($4) AS bound),
        s AS MATERIALIZED (
            SELECT b.bound,
                GREATEST((SELECT seq FROM zones WHERE id = $1 AND seq < b.bound),
                    (SELECT MAX(seq) FROM records WHERE zone_id = $1 AND seq < b.bound)) AS last_settled,
                (SELECT seq FROM records WHERE zone_id = $1 AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL AS unsettled
            FROM b
        )
        SELECT \(StoredRecordRow.columns), r.seq, s.last_settled, s.unsettled
        FROM s LEFT JOIN LATERAL (
            SELECT * FROM records WHERE zone_id = $1 AND seq > $2 AND seq < s.bound ORDER BY seq LIMIT $3
        ) r ON true
        """
}
