/// Reading back the record dictionaries ``Record/write(to:rendering:)`` writes: what clients do with answers.
extension Record: Decodable, JSONWritable {
    private enum Key: String, CodingKey {
        case recordName, recordType, recordChangeTag, fields, created, modified, zoneID, parent, share, shortGUID
        case owner, participants, publicPermission, url
    }

    /// Reads a record dictionary. A field without a `type` gets the type its value's shape shows; assets keep
    /// their `downloadURL`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let recordName = try container.decode(String.self, forKey: .recordName)
        let recordType = try container.decodeIfPresent(String.self, forKey: .recordType) ?? ""
        var values: [String: FieldValue] = [:]
        for (name, input) in try container.decodeIfPresent([String: FieldInput].self, forKey: .fields) ?? [:] where input.value != .null {
            guard let type = try input.declaredType() ?? FieldValue.inferredType(of: input.value) else {
                throw DecodingError.dataCorruptedError(forKey: .fields, in: container, debugDescription: "field \(name) has no type")
            }
            values[name] = try FieldValue(json: input.value, as: type)
        }
        let zoneID = try container.decodeIfPresent(ZoneID.self, forKey: .zoneID) ?? .default
        let shortGUID = try container.decodeIfPresent(String.self, forKey: .shortGUID)
        var shareDetails: ShareDetails?
        if recordType == ShareRecords.recordType, let owner = try container.decodeIfPresent(ShareParticipant.self, forKey: .owner) {
            let participants = try container.decodeIfPresent([ShareParticipant].self, forKey: .participants) ?? []
            shareDetails = ShareDetails(
                shortGUID: shortGUID ?? "",
                publicPermission: try container.decodeIfPresent(SharePermission.self, forKey: .publicPermission) ?? .none,
                ownerRecordName: owner.userRecordName ?? owner.participantID, rootRecordName: nil,
                participants: participants.filter { $0.type != .owner }
            )
            shareDetails?.url = try container.decodeIfPresent(String.self, forKey: .url)
        }
        self.init(
            recordName: recordName, recordType: recordType,
            recordChangeTag: try container.decodeIfPresent(String.self, forKey: .recordChangeTag) ?? "",
            fields: EncodedFields(keeping: values),
            created: try container.decodeIfPresent(RecordStamp.self, forKey: .created) ?? RecordStamp.unknown,
            modified: try container.decodeIfPresent(RecordStamp.self, forKey: .modified) ?? RecordStamp.unknown,
            zoneID: zoneID,
            parent: try container.decodeIfPresent(RecordNameInput.self, forKey: .parent)?.recordName,
            share: try container.decodeIfPresent(RecordNameInput.self, forKey: .share)?.recordName,
            shareDetails: shareDetails, shortGUID: shareDetails == nil ? shortGUID : nil
        )
    }

    /// Writes the record dictionary with every field.
    public func write(to writer: inout JSONWriter) {
        write(to: &writer, rendering: .full)
    }
}

extension RecordStamp: Codable {
    private enum Key: String, CodingKey {
        case timestamp, userRecordName, deviceID
    }

    /// A stamp of an answer that had none.
    public static let unknown = RecordStamp(timestamp: 0, userRecordName: "", deviceID: "")

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(
            timestamp: try container.decodeIfPresent(Int64.self, forKey: .timestamp) ?? 0,
            userRecordName: try container.decodeIfPresent(String.self, forKey: .userRecordName) ?? "",
            deviceID: try container.decodeIfPresent(String.self, forKey: .deviceID) ?? ""
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(timestamp, forKey: .timestamp)
        try container.encode(userRecordName, forKey: .userRecordName)
        try container.encode(deviceID, forKey: .deviceID)
    }
}

extension DeletedRecord: Decodable, JSONWritable {
    private enum Key: String, CodingKey {
        case recordName, recordType, zoneID
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        self.init(
            recordName: try container.decode(String.self, forKey: .recordName),
            recordType: try container.decodeIfPresent(String.self, forKey: .recordType),
            zoneID: try container.decodeIfPresent(ZoneID.self, forKey: .zoneID) ?? .default
        )
    }
}
