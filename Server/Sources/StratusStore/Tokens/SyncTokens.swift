import StratusModel

/// What a database sync token holds: the last change sequence number seen in the database.
public struct DatabaseSyncToken: Codable, Sendable, Hashable {
    public var sequence: Int64

    public init(sequence: Int64) {
        self.sequence = sequence
    }

    enum CodingKeys: String, CodingKey {
        case sequence = "d"
    }

    /// The opaque text clients hold.
    public var text: String { OpaqueToken.encode(self) }

    /// Reads a token a client sent back; `nil` text means "from the beginning".
    /// - Throws: ``StorageError/Code/invalidArgument`` for text that is not such a token.
    public static func read(_ text: String?) throws(StorageError) -> DatabaseSyncToken {
        guard let text else { return DatabaseSyncToken(sequence: 0) }
        return try OpaqueToken.decode(text, as: DatabaseSyncToken.self, what: "syncToken")
    }
}

/// What a zone sync token holds: which incarnation of the zone it is for (a deleted and created-again zone
/// is another one, whose changes an old token must not skip) and the last change sequence number seen.
public struct ZoneSyncToken: Codable, Sendable, Hashable {
    /// The backend's identity of the zone; `0` for a zone with no changes yet.
    public var zone: Int64
    public var sequence: Int64

    public init(zone: Int64, sequence: Int64) {
        self.zone = zone
        self.sequence = sequence
    }

    enum CodingKeys: String, CodingKey {
        case zone = "z", sequence = "s"
    }

    public var text: String { OpaqueToken.encode(self) }

    /// Reads a token a client sent back.
    /// - Throws: ``StorageError/Code/invalidArgument`` for text that is not such a token.
    public static func read(_ text: String) throws(StorageError) -> ZoneSyncToken {
        try OpaqueToken.decode(text, as: ZoneSyncToken.self, what: "syncToken")
    }
}

/// Where a query page ended: the last record's sort keys and row identity, and which query it belongs to.
public struct QueryCursor: Codable, Sendable, Hashable {
    /// ``TypedQuery``'s fingerprint: a marker is refused by any other query.
    public var fingerprint: UInt64
    public var keys: [JSONValue]
    public var lastID: Int64

    public init(fingerprint: UInt64, keys: [JSONValue], lastID: Int64) {
        self.fingerprint = fingerprint
        self.keys = keys
        self.lastID = lastID
    }

    enum CodingKeys: String, CodingKey {
        case fingerprint = "f", keys = "k", lastID = "i"
    }

    /// The fingerprint of a query in one zone (or every zone) and, for a participant, under shared roots.
    /// `v3`: hashed from the query's canonical JSON (filters' values as stored fields); markers of earlier
    /// versions are refused.
    public static func fingerprint(of query: Query, zoneName: String?, sharedRoots: [String]?) -> UInt64 {
        var writer = JSONWriter(capacity: 256)
        writer.beginArray()
        writer.arrayElement()
        writer.string("v3")
        writer.arrayElement()
        writer.string(query.recordType)
        for filter in query.filters {
            writer.arrayElement()
            writer.string(filter.comparator.rawValue)
            writer.arrayElement()
            write(filter.field, to: &writer)
            writer.arrayElement()
            filter.value.writeField(to: &writer, numbersAsStrings: false)
            writer.arrayElement()
            if let distance = filter.distance { writer.double(distance) } else { writer.null() }
        }
        for sort in query.sort {
            writer.arrayElement()
            write(sort.field, to: &writer)
            writer.arrayElement()
            writer.bool(sort.ascending)
            if let location = sort.relativeLocation {
                writer.arrayElement()
                writer.double(location.latitude)
                writer.arrayElement()
                writer.double(location.longitude)
            }
        }
        writer.arrayElement()
        if let zoneName { writer.string(zoneName) } else { writer.null() }
        for root in sharedRoots ?? [] {
            writer.arrayElement()
            writer.string(root)
        }
        writer.endArray()
        // A stable 64-bit FNV-1a hash.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in writer.bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    private static func write(_ field: FieldReference, to writer: inout JSONWriter) {
        switch field {
        case .field(let name): writer.string("f:" + name)
        case .system(let field): writer.string("s:" + field.rawValue)
        }
    }

    /// The `continuationMarker` clients hold.
    public var marker: String { OpaqueToken.encode(self) }

    /// Reads a marker a client sent back.
    /// - Throws: ``StorageError/Code/invalidArgument`` for text that is not such a marker.
    public static func read(_ marker: String) throws(StorageError) -> QueryCursor {
        try OpaqueToken.decode(marker, as: QueryCursor.self, what: "continuationMarker")
    }
}
