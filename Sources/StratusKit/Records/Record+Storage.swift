import Foundation
internal import StratusModel

/// Records as bytes for a local database (``StratusLocalStore`` keeps them so): everything the `Codable` form
/// keeps, written with StratusKit's own JSON writer and read with its parser, several times faster than
/// `JSONEncoder` and `JSONDecoder` on Linux. Fields are written in the wire's `{type, value}` shape. A record
/// holding what that shape does not carry (an asset not uploaded yet, an empty list) or a share's details is kept
/// in its `Codable` form instead; the first byte says which.
extension Record {
    /// The record as bytes to keep; ``init(storageData:)`` reads them back.
    public func storageData() -> Data {
        let fetched = fetchedValues.map(Self.wireFields)
        // A record whose fields, or fields as fetched, hold what the wire shape does not carry keeps its Codable form.
        guard shareState == nil, let fields = Self.wireFields(values), fetched.map({ $0 != nil }) ?? true else {
            return Data([Self.codableTag]) + ((try? JSONEncoder().encode(self)) ?? Data())
        }
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("recordName")
        writer.string(recordID.recordName)
        writer.key("zoneName")
        writer.string(recordID.zoneID.zoneName)
        if recordID.zoneID.ownerName != Zone.ID.currentUser { Self.member("ownerName", recordID.zoneID.ownerName, &writer) }
        Self.member("recordType", recordType, &writer)
        Self.member("recordChangeTag", recordChangeTag, &writer)
        Self.member("created", creationDate?.milliseconds, &writer)
        Self.member("creator", creatorUserRecordID?.recordName, &writer)
        Self.member("modified", modificationDate?.milliseconds, &writer)
        Self.member("lastModifiedBy", lastModifiedUserRecordID?.recordName, &writer)
        Self.member("parent", parent?.recordID.recordName, &writer)
        Self.member("share", share?.recordID.recordName, &writer)
        Self.member("fetchedParent", fetchedParent, &writer)
        writer.key("fields")
        EncodedFields.write(fields, to: &writer, numbersAsStrings: false)
        if case .some(.some(let fetched)) = fetched {
            writer.key("fetchedFields")
            EncodedFields.write(fetched, to: &writer, numbersAsStrings: false)
        }
        if !changedKeys.isEmpty {
            writer.array("changedKeys", changedKeys.sorted()) { writer, key in writer.string(key) }
        }
        writer.endObject()
        var data = Data(capacity: writer.bytes.count + 1)
        data.append(Self.wireTag)
        data.append(contentsOf: writer.bytes)
        return data
    }

    /// A record from ``storageData()``.
    /// - Throws: ``StratusError`` `invalidArguments` when the bytes are not a kept record.
    public init(storageData data: Data) throws {
        guard let tag = data.first else { throw StratusError(.invalidArguments, "no bytes to read a record from") }
        if tag == Self.codableTag {
            do {
                self = try JSONDecoder().decode(Record.self, from: data.dropFirst())
            } catch {
                throw StratusError(.invalidArguments, "a kept record cannot be read: \(error)")
            }
            return
        }
        guard tag == Self.wireTag, case .object(let object)? = try? JSONParser.parse(data.dropFirst()) else {
            throw StratusError(.invalidArguments, "the bytes are not a kept record")
        }
        guard case .string(let name)? = object["recordName"], case .string(let zoneName)? = object["zoneName"],
            case .string(let type)? = object["recordType"]
        else { throw StratusError(.invalidArguments, "a kept record has no name, zone or type") }
        let zoneID = Zone.ID(zoneName: zoneName, ownerName: object["ownerName"]?.stringValue ?? Zone.ID.currentUser)
        self.init(recordType: type, recordID: ID(recordName: name, zoneID: zoneID))
        recordChangeTag = object["recordChangeTag"]?.stringValue
        creationDate = object["created"]?.integerValue.map(Date.init(milliseconds:))
        creatorUserRecordID = object["creator"]?.stringValue.map { ID(recordName: $0) }
        modificationDate = object["modified"]?.integerValue.map(Date.init(milliseconds:))
        lastModifiedUserRecordID = object["lastModifiedBy"]?.stringValue.map { ID(recordName: $0) }
        parent = object["parent"]?.stringValue.map { Reference(recordID: ID(recordName: $0, zoneID: zoneID)) }
        share = object["share"]?.stringValue.map { Reference(recordID: ID(recordName: $0, zoneID: zoneID)) }
        fetchedParent = object["fetchedParent"]?.stringValue
        values = try Self.fields(object["fields"])
        fetchedValues = try object["fetchedFields"].map { try Self.fields($0) }
        if case .array(let keys)? = object["changedKeys"] {
            changedKeys = Set(keys.compactMap(\.stringValue))
        }
    }

    private static let codableTag = UInt8(ascii: "C")
    private static let wireTag = UInt8(ascii: "W")

    /// The wire form of fields, or `nil` when one of them has none (an asset, an empty list).
    private static func wireFields(_ values: [String: FieldValue]) -> [String: StratusModel.FieldValue]? {
        var fields: [String: StratusModel.FieldValue] = [:]
        fields.reserveCapacity(values.count)
        for (name, value) in values {
            guard !value.holdsAsset, let model = value.model else { return nil }
            fields[name] = model
        }
        return fields
    }

    private static func fields(_ json: JSONValue?) throws -> [String: FieldValue] {
        guard let stored = json?.objectValue else { return [:] }
        do {
            return try EncodedFields.decode(stored).mapValues { FieldValue(model: $0, currentUser: nil) }
        } catch {
            throw StratusError(.invalidArguments, "a kept field cannot be read: \(error)")
        }
    }

    private static func member(_ key: String, _ value: String?, _ writer: inout JSONWriter) {
        guard let value else { return }
        writer.key(key)
        writer.string(value)
    }

    private static func member(_ key: String, _ value: Int64?, _ writer: inout JSONWriter) {
        guard let value else { return }
        writer.key(key)
        writer.integer(value)
    }

}

extension FieldValue {
    /// Whether the value is, or holds, an asset.
    var holdsAsset: Bool {
        switch self {
        case .asset: true
        case .list(let values): values.contains(where: \.holdsAsset)
        default: false
        }
    }
}

extension Record {
    /// The record's system fields alone (ID, type, change tag, dates, users, parent, share): what
    /// `CKRecord.encodeSystemFields(with:)` keeps, so that a record rebuilt from it and given fields saves as an
    /// edit of the version it was fetched as.
    package func systemFieldsOnly() -> Record {
        var copy = self
        copy.values = [:]
        copy.changedKeys = []
        copy.fetchedValues = nil
        return copy
    }
}
