/// Who changed a record, and when: the `created` and `modified` dictionaries.
public struct RecordStamp: Sendable, Hashable {
    /// Milliseconds since 1970.
    public var timestamp: Int64
    public var userRecordName: String
    public var deviceID: String

    public init(timestamp: Int64, userRecordName: String, deviceID: String) {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }

    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("deviceID")
        writer.string(deviceID)
        writer.key("timestamp")
        writer.integer(timestamp)
        writer.key("userRecordName")
        writer.string(userRecordName)
        writer.endObject()
    }
}

/// A stored record as the server returns it (`docs/protocol.md#record-dictionary`).
public struct Record: Sendable, Hashable {
    public var recordName: String
    public var recordType: String
    /// Changes on every write; clients send it back to prove they saw the latest version.
    public var recordChangeTag: String
    public var fields: EncodedFields
    public var created: RecordStamp
    public var modified: RecordStamp
    public var zoneID: ZoneID
    /// The record above this one in a share's hierarchy, in the same zone.
    public var parent: String?
    /// The name of the share record that shares this record and the records beneath it.
    public var share: String?
    /// Set on share records (`cloudkit.share`) only.
    public var shareDetails: ShareDetails?
    /// The record's global short ID, given by `createShortGUID: true`; a shared root and its share have the same one.
    public var shortGUID: String?

    public init(
        recordName: String, recordType: String, recordChangeTag: String, fields: EncodedFields,
        created: RecordStamp, modified: RecordStamp, zoneID: ZoneID, parent: String? = nil, share: String? = nil,
        shareDetails: ShareDetails? = nil, shortGUID: String? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.created = created
        self.modified = modified
        self.zoneID = zoneID
        self.parent = parent
        self.share = share
        self.shareDetails = shareDetails
        self.shortGUID = shortGUID
    }
}

/// How a record is rendered in a response.
public struct RecordRendering: Sendable {
    /// Only these fields are returned; `[]` returns system keys only; `nil` returns every field.
    public var desiredKeys: Set<String>?
    /// INT64, DOUBLE and TIMESTAMP values are written as strings.
    public var numbersAsStrings: Bool
    /// Gives asset values their download URLs; without it assets are rendered without one.
    public var assetLinks: (any AssetLinking)?
    /// The user reading, named as `currentUserParticipant` of share records.
    public var viewer: String?
    /// Where share URLs point: `<shareBaseURL>/share/<shortGUID>`.
    public var shareBaseURL: String?

    public init(
        desiredKeys: [String]? = nil, numbersAsStrings: Bool = false, assetLinks: (any AssetLinking)? = nil,
        viewer: String? = nil, shareBaseURL: String? = nil
    ) {
        self.desiredKeys = desiredKeys.map(Set.init)
        self.numbersAsStrings = numbersAsStrings
        self.assetLinks = assetLinks
        self.viewer = viewer
        self.shareBaseURL = shareBaseURL
    }

    /// Every field, numbers as numbers, assets without download URLs.
    public static let full = RecordRendering()

    /// Whether stored fields can be copied verbatim.
    var isVerbatim: Bool { desiredKeys == nil && !numbersAsStrings }
}

extension Record {
    /// Writes the record dictionary. Stored fields are copied verbatim unless `rendering` filters or
    /// re-formats them, or they hold assets (whose download URLs are made for each reader).
    public func write(to writer: inout JSONWriter, rendering: RecordRendering = .full) {
        writer.beginObject()
        writer.key("created")
        created.write(to: &writer)
        writer.key("deleted")
        writer.bool(false)
        writer.key("fields")
        writeFields(to: &writer, rendering: rendering)
        writer.key("modified")
        modified.write(to: &writer)
        if let parent {
            writer.key("parent")
            writer.beginObject()
            writer.key("recordName")
            writer.string(parent)
            writer.endObject()
        }
        writer.key("recordChangeTag")
        writer.string(recordChangeTag)
        writer.key("recordName")
        writer.string(recordName)
        writer.key("recordType")
        writer.string(recordType)
        if let share {
            writer.key("share")
            writer.beginObject()
            writer.key("recordName")
            writer.string(share)
            writer.key("zoneID")
            zoneID.write(to: &writer)
            writer.endObject()
        }
        if let shareDetails {
            writeShareKeys(shareDetails, to: &writer, rendering: rendering)
        } else if let shortGUID {
            writer.key("shortGUID")
            writer.string(shortGUID)
        }
        writer.key("zoneID")
        zoneID.write(to: &writer)
        writer.endObject()
    }

    /// `currentUserParticipant`, `owner`, `participants`, `publicPermission`, `shortGUID` and `url` of a share record.
    private func writeShareKeys(_ share: ShareDetails, to writer: inout JSONWriter, rendering: RecordRendering) {
        if let current = share.participant(rendering.viewer) {
            writer.key("currentUserParticipant")
            current.write(to: &writer)
        }
        writer.key("owner")
        share.owner.write(to: &writer)
        writer.key("participants")
        writer.beginArray()
        writer.arrayElement()
        share.owner.write(to: &writer)
        for participant in share.participants where participant.acceptanceStatus != .removed {
            var shown = participant
            shown.permission = share.effectivePermission(of: participant)
            writer.arrayElement()
            shown.write(to: &writer)
        }
        writer.endArray()
        writer.key("publicPermission")
        writer.string(share.publicPermission.rawValue)
        writer.key("shortGUID")
        writer.string(share.shortGUID)
        if let url = rendering.shareBaseURL.map({ ShareRecords.url(shortGUID: share.shortGUID, baseURL: $0) }) ?? share.url {
            writer.key("url")
            writer.string(url)
        }
    }

    private func writeFields(to writer: inout JSONWriter, rendering: RecordRendering) {
        let hasAssets = fields.containsAssets
        if rendering.isVerbatim && !hasAssets {
            writer.raw(fields.json)
            return
        }
        if rendering.desiredKeys?.isEmpty == true {
            writer.beginObject()
            writer.endObject()
            return
        }
        // Stored JSON is always canonical; a failure here means a corrupt row, which reads as no fields.
        var values = (try? fields.decode()) ?? [:]
        if let desired = rendering.desiredKeys {
            values = values.filter { desired.contains($0.key) }
        }
        if hasAssets {
            for (name, value) in values where value.type.scalar == .asset {
                values[name] = value.mappingAssets { stored in
                    Asset(
                        fileChecksum: stored.fileChecksum, size: stored.size,
                        // Stored assets get a URL for this reader; a record read from an answer keeps the one it came with.
                        downloadURL: stored.assetID.flatMap { rendering.assetLinks?.downloadURL(forAsset: $0, field: name, of: self) }
                            ?? stored.downloadURL
                    )
                }
            }
        }
        EncodedFields.write(values, to: &writer, numbersAsStrings: rendering.numbersAsStrings)
    }
}

/// A deletion as change feeds and `records/modify` report it: `{recordName, recordType?, deleted: true}`.
public struct DeletedRecord: Sendable, Hashable {
    public var recordName: String
    public var recordType: String?
    public var zoneID: ZoneID

    public init(recordName: String, recordType: String?, zoneID: ZoneID) {
        self.recordName = recordName
        self.recordType = recordType
        self.zoneID = zoneID
    }

    /// Writes the deletion dictionary.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("deleted")
        writer.bool(true)
        writer.key("recordName")
        writer.string(recordName)
        if let recordType {
            writer.key("recordType")
            writer.string(recordType)
        }
        writer.key("zoneID")
        zoneID.write(to: &writer)
        writer.endObject()
    }
}
