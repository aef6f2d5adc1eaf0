extension ShortGUIDInput: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        if let rootRecordDesiredKeys {
            writer.array("rootRecordDesiredKeys", rootRecordDesiredKeys) { writer, key in writer.string(key) }
        }
        writer.member("shouldFetchRootRecord", shouldFetchRootRecord)
        writer.member("value", value)
        writer.endObject()
    }
}

/// What a share link opens, as `records/resolve` and `records/accept` answer it (a ShortGUID Result,
/// `docs/protocol.md#sharing`): the share, its zone and root, its owner, and what the caller is to it.
public struct ShareLinkResult: Sendable, Hashable, Decodable, JSONWritable {
    /// Where the caller finds the share's zone: `PRIVATE` for its owner, `SHARED` for anyone else.
    public enum Scope: String, Sendable, Hashable, Codable {
        case `private` = "PRIVATE"
        case shared = "SHARED"
    }

    public var containerIdentifier: String
    public var databaseScope: Scope
    public var environment: Environment
    public var zoneID: ZoneID
    /// The share record.
    public var share: Record
    /// The shared record, for a record share.
    public var rootRecordName: String?
    /// The shared record itself, when asked for (`shouldFetchRootRecord`).
    public var rootRecord: Record?
    public var shortGUID: ShortGUIDInput
    /// The share link.
    public var url: String
    public var ownerIdentity: UserIdentityEntry
    public var participantPermission: SharePermission
    public var participantStatus: AcceptanceStatus
    public var participantType: ParticipantType

    public init(
        containerIdentifier: String, databaseScope: Scope, environment: Environment, zoneID: ZoneID, share: Record,
        rootRecordName: String?, rootRecord: Record?, shortGUID: ShortGUIDInput, url: String, ownerIdentity: UserIdentityEntry,
        participantPermission: SharePermission, participantStatus: AcceptanceStatus, participantType: ParticipantType
    ) {
        self.containerIdentifier = containerIdentifier
        self.databaseScope = databaseScope
        self.environment = environment
        self.zoneID = zoneID
        self.share = share
        self.rootRecordName = rootRecordName
        self.rootRecord = rootRecord
        self.shortGUID = shortGUID
        self.url = url
        self.ownerIdentity = ownerIdentity
        self.participantPermission = participantPermission
        self.participantStatus = participantStatus
        self.participantType = participantType
    }

    /// Writes the result, the share and the root record each rendered for the caller.
    public func write(to writer: inout JSONWriter, share shareRendering: RecordRendering, root rootRendering: RecordRendering) {
        writer.beginObject()
        writer.member("containerIdentifier", containerIdentifier)
        writer.member("databaseScope", databaseScope.rawValue)
        writer.member("environment", environment.rawValue)
        writer.member("ownerIdentity", ownerIdentity)
        writer.member("participantPermission", participantPermission.rawValue)
        writer.member("participantStatus", participantStatus.rawValue)
        writer.member("participantType", participantType.rawValue)
        if let rootRecord {
            writer.key("rootRecord")
            rootRecord.write(to: &writer, rendering: rootRendering)
        }
        writer.member("rootRecordName", rootRecordName)
        writer.key("share")
        share.write(to: &writer, rendering: shareRendering)
        writer.member("shortGUID", shortGUID)
        writer.member("url", url)
        writer.member("zoneID", zoneID)
        writer.endObject()
    }

    public func write(to writer: inout JSONWriter) {
        write(to: &writer, share: .full, root: .full)
    }
}

/// A share link's error (a ShortGUID Fetch Error): `{shortGUID, serverErrorCode, reason}`.
public struct ShareLinkErrorEntry: Sendable, Hashable, Decodable, JSONWritable {
    public var shortGUID: ShortGUIDInput
    public var serverErrorCode: String
    public var reason: String

    public init(shortGUID: ShortGUIDInput, serverErrorCode: String, reason: String) {
        self.shortGUID = shortGUID
        self.serverErrorCode = serverErrorCode
        self.reason = reason
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("reason", reason)
        writer.member("serverErrorCode", serverErrorCode)
        writer.member("shortGUID", shortGUID)
        writer.endObject()
    }
}

/// One item of a `records/resolve` or `records/accept` answer: what the link opens, or its error.
public enum ShareLinkResultEntry: Sendable, Hashable, Decodable, JSONWritable {
    case result(ShareLinkResult)
    case failure(ShareLinkErrorEntry)

    private enum Key: String, CodingKey {
        case serverErrorCode
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self = container.contains(.serverErrorCode) ? .failure(try ShareLinkErrorEntry(from: decoder)) : .result(try ShareLinkResult(from: decoder))
    }

    /// Writes the item, records rendered for the caller.
    public func write(to writer: inout JSONWriter, share: RecordRendering, root: RecordRendering) {
        switch self {
        case .result(let result): result.write(to: &writer, share: share, root: root)
        case .failure(let failure): failure.write(to: &writer)
        }
    }

    public func write(to writer: inout JSONWriter) {
        write(to: &writer, share: .full, root: .full)
    }
}

/// The answer of `records/resolve` and `records/accept`: `{results}`, one per short GUID asked about.
public struct ShareLinkResponse: Sendable, Hashable, Decodable, JSONWritable {
    public var results: [ShareLinkResultEntry]

    public init(results: [ShareLinkResultEntry]) {
        self.results = results
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.array("results", results) { writer, result in result.write(to: &writer) }
        writer.endObject()
    }
}
