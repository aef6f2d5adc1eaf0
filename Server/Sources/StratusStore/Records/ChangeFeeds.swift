import StratusModel

/// CloudKit's change-feed rules, once for every backend: which zones `changes/database` reports and in what
/// order, where a zone's token starts, and which rows of a zone's feed make a page. A backend reads positions and
/// rows; these functions decide.
public enum ChangeFeeds {
    /// A zone of a database as a backend reads it for `changes/database`.
    public struct ZoneState: Sendable, Hashable {
        public var name: String
        public var deleted: Bool
        /// The position of its latest change (its creation or deletion, or a record change).
        public var lastChange: Int64

        public init(name: String, deleted: Bool, lastChange: Int64) {
            self.name = name
            self.deleted = deleted
            self.lastChange = lastChange
        }
    }

    /// The zones changed after `since`, oldest change first, one page of them; a zone deleted and created again
    /// under its name reports only its latest state.
    public static func databaseChanges(_ zones: [ZoneState], in database: DatabaseRef, since: Int64, limit: Int) -> DatabaseChanges {
        let changed = zones.filter { $0.lastChange > since }.sorted { $0.lastChange < $1.lastChange }
        var latest: [String: Int64] = [:]
        for zone in changed { latest[zone.name] = zone.lastChange }
        let ordered = changed.filter { latest[$0.name] == $0.lastChange }
        let page = ordered.prefix(limit)
        return DatabaseChanges(
            zones: page.map { ZoneChange(zoneID: database.wireZoneID($0.name), deleted: $0.deleted) },
            syncToken: DatabaseSyncToken(sequence: max(page.last?.lastChange ?? since, since)).text,
            moreComing: ordered.count > page.count
        )
    }

    /// A zone of another user that a participant has or had shares in, as a backend reads it for their shared
    /// database.
    public struct SharedZoneState: Sendable, Hashable {
        public var owner: String
        public var name: String
        /// Whether a share the participant accepted still reaches the zone (and the zone exists).
        public var reachable: Bool
        /// The latest change to their shares there and, while they reach it, to its records.
        public var lastChange: Int64

        public init(owner: String, name: String, reachable: Bool, lastChange: Int64) {
            self.owner = owner
            self.name = name
            self.reachable = reachable
            self.lastChange = lastChange
        }
    }

    /// The zones of a participant's shared database: those a share they accepted still reaches, by owner and name.
    public static func sharedZones(_ zones: [SharedZoneState], containerID: String, environment: Environment) -> [ZoneRef] {
        zones.filter(\.reachable)
            .map { DatabaseRef.privateDatabase(containerID, environment, owner: $0.owner).zone($0.name) }
            .sorted { ($0.database.ownerRecordName, $0.zoneName) < ($1.database.ownerRecordName, $1.zoneName) }
    }

    /// `changes/database` of a shared database: zones whose records changed, that were accepted, or that the
    /// participant can no longer reach (reported deleted), oldest change first, one page of them.
    public static func sharedDatabaseChanges(_ zones: [SharedZoneState], since: Int64, limit: Int) -> DatabaseChanges {
        let changed = zones.filter { $0.lastChange > since }.sorted { $0.lastChange < $1.lastChange }
        let page = changed.prefix(limit)
        return DatabaseChanges(
            zones: page.map { ZoneChange(zoneID: ZoneID(zoneName: $0.name, ownerRecordName: $0.owner), deleted: !$0.reachable) },
            syncToken: DatabaseSyncToken(sequence: max(page.last?.lastChange ?? since, since)).text,
            moreComing: changed.count > page.count
        )
    }

    /// The feed of a default zone no write has stored yet: nothing, and a token from the beginning.
    public static let emptyDefaultZone = ZoneChanges(changes: [], syncToken: ZoneSyncToken(zone: 0, sequence: 0).text, moreComing: false)

    /// The position after which a zone's feed reads: 0 without a token (or with an empty zone's token).
    /// - Throws: ``StorageError/Code/invalidArgument`` for a token of another zone, or of a zone deleted since.
    public static func start(after token: ZoneSyncToken?, inZone zoneID: Int64) throws(StorageError) -> Int64 {
        guard let token, token.zone != 0 || token.sequence != 0 else { return 0 }
        guard token.zone == zoneID else {
            throw StorageError(.invalidArgument, "syncToken belongs to another zone, or to a zone that was deleted; sync again from no token")
        }
        return token.sequence
    }

    /// Whether a zone's feed reports deletions: with a token, always (whatever the reader saw then, even of an
    /// empty zone, it may have learned of records since, its own sends among them); read from no token, never:
    /// whoever reads it holds none of the zone's records, so deletions would only replay the zone's history (a fresh
    /// install syncing a zone of long-deleted records). The token still moves past them.
    public static func includesDeletions(token: ZoneSyncToken?) -> Bool {
        token != nil
    }

    /// A page of a feed read through a query: records that do not match come as deletions, since they may have
    /// left the set the reader holds, or not at all in a feed read from the start; `query` `nil` (a record type
    /// no record has yet) matches nothing. Deletions stay.
    public static func keeping(_ changes: [RecordChange], matching query: Query?, fromStart: Bool) throws -> [RecordChange] {
        try changes.compactMap { change in
            guard case .saved(let record) = change else { return change }
            if let query, RecordMatcher(record: record, fields: try record.fields.decode()).matches(query) { return change }
            return fromStart ? nil : .deleted(DeletedRecord(recordName: record.recordName, recordType: record.recordType, zoneID: record.zoneID))
        }
    }

    /// How many rows one page may read: a page's worth, or, when only some record types are asked for, twenty
    /// times that (rows of other types advance the token without filling the page).
    public static func scanLimit(for query: ZoneChangesQuery) -> Int {
        query.recordTypes == nil ? query.limit : query.limit * 20
    }

    /// Where a page of a zone's feed ends, from up to ``scanLimit(for:)`` + 1 rows read in order after `since`.
    public struct Page: Sendable, Equatable {
        /// The position the page's token holds before the zone's last settled change is considered.
        public var lastPosition: Int64
        public var moreComing: Bool

        public init(lastPosition: Int64, moreComing: Bool) {
            self.lastPosition = lastPosition
            self.moreComing = moreComing
        }
    }

    /// Picks a page as rows come from the backend in feed order, so that only the rows taken are decoded.
    ///
    /// ```swift
    /// var builder = ChangeFeeds.PageBuilder(since: since, query: query)
    /// while let row = try cursor.next() {
    ///     switch builder.next(recordType: row.type, position: row.seq) { case .take: ...; case .skip: continue; case .stop: break }
    /// }
    /// ```
    public struct PageBuilder: Sendable {
        /// What to do with the next row read.
        public enum Decision: Sendable {
            /// The row is in the page.
            case take
            /// The row is of a type not asked for; it still moves the token on.
            case skip
            /// The page is complete (and more come): the row is not read.
            case stop
        }

        private let query: ZoneChangesQuery
        private let scanLimit: Int
        private var scanned = 0
        private var taken = 0
        /// The page so far.
        public private(set) var page: Page

        public init(since: Int64, query: ZoneChangesQuery) {
            self.query = query
            scanLimit = ChangeFeeds.scanLimit(for: query)
            page = Page(lastPosition: since, moreComing: false)
        }

        public mutating func next(recordType: String, position: Int64) -> Decision {
            if taken == query.limit || scanned == scanLimit {
                page.moreComing = true
                return .stop
            }
            scanned += 1
            page.lastPosition = position
            if let types = query.recordTypes, !types.contains(recordType) { return .skip }
            taken += 1
            return .take
        }
    }
}
