/// The body of `POST /admin/1/{container}/{environment}/records/import`: records copied from another server into
/// one zone, keeping their names, their creation and modification stamps and their short GUIDs.
public struct ImportRecordsRequest: Sendable, Hashable, Codable {
    /// `public` (the default) or `private`.
    public var database: DatabaseScope?
    /// The user whose private database the zone is in.
    public var ownerRecordName: String?
    /// `_defaultZone` when absent.
    public var zoneName: String?
    public var records: [ImportedRecord]

    public init(database: DatabaseScope? = nil, ownerRecordName: String? = nil, zoneName: String? = nil, records: [ImportedRecord]) {
        self.database = database
        self.ownerRecordName = ownerRecordName
        self.zoneName = zoneName
        self.records = records
    }
}

/// One record as the source server answered it, its asset values carrying the receipts of their copies (or only
/// the checksum and size of a file the record holds already).
public struct ImportedRecord: Sendable, Hashable, Codable {
    public var recordName: String
    public var recordType: String
    public var fields: [String: FieldInput]
    public var created: RecordStamp
    public var modified: RecordStamp
    /// The record above this one in a share's hierarchy; it must be in the zone already.
    public var parent: String?
    public var shortGUID: String?
    /// For a share record: what it shares and with whom.
    public var share: ImportedShare?

    public init(
        recordName: String, recordType: String, fields: [String: FieldInput], created: RecordStamp, modified: RecordStamp,
        parent: String? = nil, shortGUID: String? = nil, share: ImportedShare? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.fields = fields
        self.created = created
        self.modified = modified
        self.parent = parent
        self.shortGUID = shortGUID
        self.share = share
    }
}

/// A share record's share, as an archive keeps it: its root (nil for a zone-wide share), public permission and
/// the participants the owner added, each found again by record name, email address or phone number.
public struct ImportedShare: Sendable, Hashable, Codable {
    public struct Participant: Sendable, Hashable, Codable {
        public var userRecordName: String?
        public var emailAddress: String?
        public var phoneNumber: String?
        public var permission: SharePermission
        /// Whether the participant had accepted; the import accepts for them.
        public var accepted: Bool
        /// Joined through the share's link (a `PUBLIC_USER`) rather than added by the owner.
        public var throughLink: Bool

        public init(userRecordName: String?, emailAddress: String?, phoneNumber: String?, permission: SharePermission, accepted: Bool, throughLink: Bool) {
            self.userRecordName = userRecordName
            self.emailAddress = emailAddress
            self.phoneNumber = phoneNumber
            self.permission = permission
            self.accepted = accepted
            self.throughLink = throughLink
        }
    }

    public var rootRecordName: String?
    public var publicPermission: SharePermission
    public var participants: [Participant]

    public init(rootRecordName: String?, publicPermission: SharePermission, participants: [Participant]) {
        self.rootRecordName = rootRecordName
        self.publicPermission = publicPermission
        self.participants = participants
    }
}
