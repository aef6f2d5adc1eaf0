import Foundation

/// Records kept on the device: a whole record (``Record/init(from:)``), or only its system fields beside the app's
/// own columns (``Record/encodeSystemFields()``, CloudKit's `encodeSystemFields(with:)`).
///
/// ```swift
/// // Saving: the app's columns, and the system fields as bytes.
/// row.title = record["title"]
/// row.systemFields = record.encodeSystemFields()
/// // Later, after a relaunch: the same record, with its change tag, ready to edit and save.
/// var record = try Record(systemFields: row.systemFields)
/// record["title"] = row.title
/// ```
///
/// Dates are kept as milliseconds since 1970, as the server keeps them, so a record reads back exactly with any
/// encoder. A whole record also keeps its fields as last fetched, so a conflict after a relaunch still has its
/// ``StratusError/ancestorRecord``.
extension Record: Codable {
    enum CodingKeys: String, CodingKey {
        case recordName, zoneName, ownerName, recordType, recordChangeTag
        case created, creator, modified, lastModifiedBy, parent, share
        case fields, changedKeys, fetchedFields, fetchedParent, shareState
    }

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        let zoneID = Zone.ID(
            zoneName: try keys.decode(String.self, forKey: .zoneName),
            ownerName: try keys.decodeIfPresent(String.self, forKey: .ownerName) ?? Zone.ID.currentUser
        )
        self.init(recordType: try keys.decode(String.self, forKey: .recordType), recordID: ID(recordName: try keys.decode(String.self, forKey: .recordName), zoneID: zoneID))
        recordChangeTag = try keys.decodeIfPresent(String.self, forKey: .recordChangeTag)
        creationDate = try keys.decodeIfPresent(Int64.self, forKey: .created).map(Date.init(milliseconds:))
        modificationDate = try keys.decodeIfPresent(Int64.self, forKey: .modified).map(Date.init(milliseconds:))
        creatorUserRecordID = try keys.decodeIfPresent(String.self, forKey: .creator).map { ID(recordName: $0) }
        lastModifiedUserRecordID = try keys.decodeIfPresent(String.self, forKey: .lastModifiedBy).map { ID(recordName: $0) }
        parent = try keys.decodeIfPresent(String.self, forKey: .parent).map { Reference(recordID: ID(recordName: $0, zoneID: zoneID)) }
        share = try keys.decodeIfPresent(String.self, forKey: .share).map { Reference(recordID: ID(recordName: $0, zoneID: zoneID)) }
        values = try keys.decodeIfPresent([String: FieldValue].self, forKey: .fields) ?? [:]
        changedKeys = try keys.decodeIfPresent(Set<String>.self, forKey: .changedKeys) ?? []
        fetchedValues = try keys.decodeIfPresent([String: FieldValue].self, forKey: .fetchedFields)
        fetchedParent = try keys.decodeIfPresent(String.self, forKey: .fetchedParent)
        shareState = try keys.decodeIfPresent(Share.State.self, forKey: .shareState)
    }

    public func encode(to encoder: any Encoder) throws {
        try encode(to: encoder, systemFieldsOnly: false)
    }

    private func encode(to encoder: any Encoder, systemFieldsOnly: Bool) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(recordID.recordName, forKey: .recordName)
        try keys.encode(recordID.zoneID.zoneName, forKey: .zoneName)
        if recordID.zoneID.ownerName != Zone.ID.currentUser { try keys.encode(recordID.zoneID.ownerName, forKey: .ownerName) }
        try keys.encode(recordType, forKey: .recordType)
        try keys.encodeIfPresent(recordChangeTag, forKey: .recordChangeTag)
        try keys.encodeIfPresent(creationDate?.milliseconds, forKey: .created)
        try keys.encodeIfPresent(creatorUserRecordID?.recordName, forKey: .creator)
        try keys.encodeIfPresent(modificationDate?.milliseconds, forKey: .modified)
        try keys.encodeIfPresent(lastModifiedUserRecordID?.recordName, forKey: .lastModifiedBy)
        try keys.encodeIfPresent(parent?.recordID.recordName, forKey: .parent)
        try keys.encodeIfPresent(share?.recordID.recordName, forKey: .share)
        // The parent as fetched belongs to the system fields: without it, removing the parent later is not sent.
        try keys.encodeIfPresent(fetchedParent, forKey: .fetchedParent)
        guard !systemFieldsOnly else { return }
        try keys.encode(values, forKey: .fields)
        if !changedKeys.isEmpty { try keys.encode(changedKeys.sorted(), forKey: .changedKeys) }
        try keys.encodeIfPresent(fetchedValues, forKey: .fetchedFields)
        try keys.encodeIfPresent(shareState, forKey: .shareState)
    }

    /// The record's system fields alone, as bytes to keep beside the app's own copy of its fields: the name, the
    /// zone, the type, the change tag, the creation and modification, the share and the parent (CloudKit's
    /// `encodeSystemFields(with:)`). ``init(systemFields:)`` reads them back.
    public func encodeSystemFields() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Strings, numbers and a set of strings always encode.
        return (try? encoder.encode(SystemFields(record: self))) ?? Data()
    }

    /// A record with the system fields ``encodeSystemFields()`` kept and no field values: set the app's fields
    /// on it, and it saves as an edit of the record the server has, not as a new one (CloudKit's `init(coder:)`).
    /// - Throws: ``StratusError`` `invalidArguments` when the bytes are not a record's system fields.
    public init(systemFields: Data) throws {
        do {
            self = try JSONDecoder().decode(Record.self, from: systemFields)
        } catch {
            throw StratusError(.invalidArguments, "the bytes are not a record's system fields: \(error)")
        }
    }

    /// Encodes a record without its fields.
    private struct SystemFields: Encodable {
        let record: Record
        func encode(to encoder: any Encoder) throws { try record.encode(to: encoder, systemFieldsOnly: true) }
    }
}

extension Record.ID: Codable {
    enum CodingKeys: String, CodingKey {
        case recordName, zoneName, ownerName
    }

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            recordName: try keys.decode(String.self, forKey: .recordName),
            zoneID: Zone.ID(
                zoneName: try keys.decodeIfPresent(String.self, forKey: .zoneName) ?? Zone.ID.defaultZoneName,
                ownerName: try keys.decodeIfPresent(String.self, forKey: .ownerName) ?? Zone.ID.currentUser
            )
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(recordName, forKey: .recordName)
        try keys.encode(zoneID.zoneName, forKey: .zoneName)
        if zoneID.ownerName != Zone.ID.currentUser { try keys.encode(zoneID.ownerName, forKey: .ownerName) }
    }
}

extension Zone.ID: Codable {
    enum CodingKeys: String, CodingKey {
        case zoneName, ownerName
    }

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            zoneName: try keys.decode(String.self, forKey: .zoneName),
            ownerName: try keys.decodeIfPresent(String.self, forKey: .ownerName) ?? Zone.ID.currentUser
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        try keys.encode(zoneName, forKey: .zoneName)
        if ownerName != Zone.ID.currentUser { try keys.encode(ownerName, forKey: .ownerName) }
    }
}

extension LocalizedString: Codable {
    /// Kept as its translations by language tag: `{"en": "Hello", "es": "Hola"}`.
    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode([String: String].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var value = encoder.singleValueContainer()
        try value.encode(translations)
    }
}

extension FieldValue: Codable {
    /// One key naming the value's type: `{"string": "Hello"}`, `{"date": 1732579200000}` (milliseconds),
    /// `{"list": [{"int64": 1}, {"int64": 2}]}`.
    enum CodingKeys: String, CodingKey {
        case string, int64, double, bool, date, bytes, location, reference, asset, localizedString, list
    }

    public init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: CodingKeys.self)
        guard let key = keys.allKeys.first, keys.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a field value names exactly one type"))
        }
        switch key {
        case .string: self = .string(try keys.decode(String.self, forKey: key))
        case .int64: self = .int64(try keys.decode(Int64.self, forKey: key))
        case .double: self = .double(try keys.decode(Double.self, forKey: key))
        case .bool: self = .bool(try keys.decode(Bool.self, forKey: key))
        case .date: self = .date(Date(milliseconds: try keys.decode(Int64.self, forKey: key)))
        case .bytes: self = .bytes(try keys.decode(Data.self, forKey: key))
        case .location: self = .location(try keys.decode(Location.self, forKey: key))
        case .reference: self = .reference(try keys.decode(Record.Reference.self, forKey: key))
        case .asset: self = .asset(try keys.decode(Asset.self, forKey: key))
        case .localizedString: self = .localizedString(try keys.decode(LocalizedString.self, forKey: key))
        case .list: self = .list(try keys.decode([FieldValue].self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var keys = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .string(let value): try keys.encode(value, forKey: .string)
        case .int64(let value): try keys.encode(value, forKey: .int64)
        case .double(let value): try keys.encode(value, forKey: .double)
        case .bool(let value): try keys.encode(value, forKey: .bool)
        case .date(let value): try keys.encode(value.milliseconds, forKey: .date)
        case .bytes(let value): try keys.encode(value, forKey: .bytes)
        case .location(let value): try keys.encode(value, forKey: .location)
        case .reference(let value): try keys.encode(value, forKey: .reference)
        case .asset(let value): try keys.encode(value, forKey: .asset)
        case .localizedString(let value): try keys.encode(value, forKey: .localizedString)
        case .list(let values): try keys.encode(values, forKey: .list)
        }
    }
}
