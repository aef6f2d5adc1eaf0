import Foundation

extension FieldValue {
    /// Decodes a wire `value` as a value of `type`.
    ///
    /// Tolerant where clients differ: numbers may arrive as strings (`numbersAsStrings`), booleans as
    /// INT64 0/1, a reference without `action` means `NONE`.
    /// - Throws: ``ModelError/Code/invalidValue`` naming the expected shape.
    public init(json: JSONValue, as type: FieldType) throws(ModelError) {
        if type.isList {
            guard case .array(let elements) = json else {
                throw ModelError(.invalidValue, "expected an array for \(type.wireName), got \(json.kindName)")
            }
            var values: [FieldValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                values.append(try FieldValue(json: element, as: FieldType(type.scalar)))
            }
            self = .list(type.scalar, values)
            return
        }
        switch type.scalar {
        case .string:
            guard case .string(let string) = json else { throw Self.mismatch(json, type) }
            self = .string(string)
        case .int64:
            self = .int64(try Self.integer(from: json, type))
        case .timestamp:
            self = .timestamp(try Self.integer(from: json, type, roundingFractions: true))
        case .double:
            switch json {
            case .integer(let value): self = .double(Double(value))
            case .double(let value): self = .double(value)
            case .string(let string):
                guard let value = Double(string), value.isFinite else { throw Self.mismatch(json, type) }
                self = .double(value)
            default: throw Self.mismatch(json, type)
            }
        case .bytes:
            guard case .string(let string) = json, let data = Self.base64Data(string) else {
                throw ModelError(.invalidValue, "expected a base64 string for BYTES")
            }
            self = .bytes(data)
        case .reference:
            self = .reference(try Self.reference(from: json))
        case .location:
            self = .location(try Self.location(from: json))
        case .asset:
            self = .asset(try Self.asset(from: json))
        case .boolean:
            switch json {
            case .bool(let value): self = .boolean(value)
            case .integer(0): self = .boolean(false)
            case .integer(1): self = .boolean(true)
            case .string("true"): self = .boolean(true)
            case .string("false"): self = .boolean(false)
            default: throw ModelError(.invalidValue, "expected true or false for BOOLEAN, got \(json.kindName)")
            }
        case .localizedString:
            self = .localizedString(try Self.localizedText(from: json))
        }
    }

    /// Whether `tag` looks like a language tag: letters, digits and hyphens, starting with a letter.
    public static func isLanguageTag(_ tag: String) -> Bool {
        guard let first = tag.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic, tag.utf8.count <= 35 else { return false }
        return tag.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-") }
    }

    private static func localizedText(from json: JSONValue) throws(ModelError) -> [String: String] {
        guard case .object(let object) = json else {
            throw ModelError(.invalidValue, "expected a LOCALIZED_STRING dictionary of language tag to text, like {\"en\": \"Hello\"}")
        }
        var texts: [String: String] = [:]
        for (tag, value) in object {
            guard isLanguageTag(tag) else { throw ModelError(.invalidValue, "'\(tag)' is not a language tag") }
            guard case .string(let text) = value else { throw ModelError(.invalidValue, "the \(tag) text must be a string") }
            texts[tag] = text
        }
        return texts
    }

    /// The type a value sent without `type` most likely has, or `nil` when it cannot be told.
    public static func inferredType(of json: JSONValue) -> FieldType? {
        switch json {
        case .null: return nil
        case .string: return FieldType(.string)
        case .integer: return FieldType(.int64)
        case .bool: return FieldType(.boolean)
        case .double: return FieldType(.double)
        case .object(let object):
            if object["latitude"] != nil && object["longitude"] != nil { return FieldType(.location) }
            if object["recordName"] != nil { return FieldType(.reference) }
            if object["fileChecksum"] != nil || object["receipt"] != nil { return FieldType(.asset) }
            return nil
        case .array(let elements):
            var element: ScalarType?
            for value in elements {
                guard let type = inferredType(of: value), !type.isList else { return nil }
                switch (element, type.scalar) {
                case (nil, let scalar): element = scalar
                case (.int64, .double), (.double, .int64): element = .double
                case (let known?, let scalar) where known == scalar: break
                default: return nil
                }
            }
            return element.map(FieldType.list)
        }
    }

    // MARK: - Writing

    /// Writes the wire `value` (without the surrounding `{value, type}`).
    public func writeValue(to writer: inout JSONWriter, numbersAsStrings: Bool = false) {
        switch self {
        case .string(let value): writer.string(value)
        case .int64(let value), .timestamp(let value):
            if numbersAsStrings { writer.string(String(value)) } else { writer.integer(value) }
        case .double(let value):
            if numbersAsStrings { writer.string(value.description) } else { writer.double(value) }
        case .bytes(let data): writer.string(data.base64EncodedString())
        case .reference(let reference):
            writer.beginObject()
            writer.key("action")
            writer.string(reference.action.rawValue)
            writer.key("recordName")
            writer.string(reference.recordName)
            if let zoneID = reference.zoneID {
                writer.key("zoneID")
                zoneID.write(to: &writer)
            }
            writer.endObject()
        case .location(let location):
            writer.beginObject()
            Self.writeOptional("altitude", location.altitude, &writer)
            Self.writeOptional("course", location.course, &writer)
            Self.writeOptional("horizontalAccuracy", location.horizontalAccuracy, &writer)
            writer.key("latitude")
            writer.double(location.latitude)
            writer.key("longitude")
            writer.double(location.longitude)
            Self.writeOptional("speed", location.speed, &writer)
            if let timestamp = location.timestamp {
                writer.key("timestamp")
                writer.integer(timestamp)
            }
            Self.writeOptional("verticalAccuracy", location.verticalAccuracy, &writer)
            writer.endObject()
        case .asset(let asset):
            writer.beginObject()
            for (key, value) in [
                ("assetID", asset.assetID), ("downloadURL", asset.downloadURL), ("fileChecksum", asset.fileChecksum),
                ("receipt", asset.receipt), ("referenceChecksum", asset.referenceChecksum),
            ] {
                if let value {
                    writer.key(key)
                    writer.string(value)
                }
            }
            if let size = asset.size {
                writer.key("size")
                writer.integer(size)
            }
            if let wrappingKey = asset.wrappingKey {
                writer.key("wrappingKey")
                writer.string(wrappingKey)
            }
            writer.endObject()
        case .boolean(let value): writer.bool(value)
        case .localizedString(let texts):
            writer.beginObject()
            for tag in texts.keys.sorted() {
                writer.key(tag)
                writer.string(texts[tag]!)
            }
            writer.endObject()
        case .list(_, let values):
            writer.beginArray()
            for value in values {
                writer.arrayElement()
                value.writeValue(to: &writer, numbersAsStrings: numbersAsStrings)
            }
            writer.endArray()
        }
    }

    /// Writes the record field dictionary `{"type": ..., "value": ...}`.
    public func writeField(to writer: inout JSONWriter, numbersAsStrings: Bool = false) {
        writer.beginObject()
        writer.key("type")
        writer.string(type.wireName)
        writer.key("value")
        writeValue(to: &writer, numbersAsStrings: numbersAsStrings)
        writer.endObject()
    }

    // MARK: - Helpers

    private static func writeOptional(_ key: String, _ value: Double?, _ writer: inout JSONWriter) {
        guard let value else { return }
        writer.key(key)
        writer.double(value)
    }

    private static func mismatch(_ json: JSONValue, _ type: FieldType) -> ModelError {
        ModelError(.invalidValue, "expected a value of type \(type.wireName), got \(json.kindName)")
    }

    private static func integer(from json: JSONValue, _ type: FieldType, roundingFractions: Bool = false) throws(ModelError) -> Int64 {
        switch json {
        case .integer(let value): return value
        case .bool(let value): return value ? 1 : 0
        case .double(let value):
            let rounded = roundingFractions ? value.rounded() : value
            guard rounded == rounded.rounded(), let exact = Int64(exactly: rounded) else { throw mismatch(json, type) }
            return exact
        case .string(let string):
            guard let value = Int64(string) else { throw mismatch(json, type) }
            return value
        default: throw mismatch(json, type)
        }
    }

    static func base64Data(_ string: String) -> Data? {
        if let data = Data(base64Encoded: string) { return data }
        var normalized = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        normalized = normalized.trimmingCharacters(in: .whitespacesAndNewlines)
        while normalized.utf8.count % 4 != 0 { normalized.append("=") }
        return Data(base64Encoded: normalized)
    }

    private static func double(_ object: [String: JSONValue], _ key: String) throws(ModelError) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case .integer(let value)?: return Double(value)
        case .double(let value)?: return value
        case .string(let string)?:
            if let value = Double(string) { return value }
            throw ModelError(.invalidValue, "expected a number for \(key)")
        default: throw ModelError(.invalidValue, "expected a number for \(key)")
        }
    }

    private static func reference(from json: JSONValue) throws(ModelError) -> Reference {
        guard case .object(let object) = json, case .string(let recordName)? = object["recordName"],
            RecordNames.isValidName(recordName)
        else {
            throw ModelError(.invalidValue, "expected a REFERENCE dictionary {recordName, zoneID?, action}")
        }
        var action = Reference.Action.none
        if case .string(let name)? = object["action"] {
            guard let parsed = Reference.Action(rawValue: name) else {
                throw ModelError(.invalidValue, "reference action must be NONE, DELETE_SELF or VALIDATE")
            }
            action = parsed
        }
        var zoneID: ZoneID?
        if case .object(let zone)? = object["zoneID"] {
            var id = ZoneID()
            if case .string(let name)? = zone["zoneName"] { id.zoneName = name }
            if case .string(let owner)? = zone["ownerRecordName"] { id.ownerRecordName = owner }
            zoneID = id
        }
        return Reference(recordName: recordName, zoneID: zoneID, action: action)
    }

    private static func location(from json: JSONValue) throws(ModelError) -> Location {
        guard case .object(let object) = json, let latitude = try double(object, "latitude"),
            let longitude = try double(object, "longitude")
        else {
            throw ModelError(.invalidValue, "expected a LOCATION dictionary with latitude and longitude")
        }
        guard (-90...90).contains(latitude), (-180...180).contains(longitude) else {
            throw ModelError(.invalidValue, "latitude must be within -90...90 and longitude within -180...180")
        }
        var timestamp: Int64?
        if let value = try double(object, "timestamp") { timestamp = Int64(value.rounded()) }
        return Location(
            latitude: latitude, longitude: longitude,
            horizontalAccuracy: try double(object, "horizontalAccuracy"),
            verticalAccuracy: try double(object, "verticalAccuracy"),
            altitude: try double(object, "altitude"), speed: try double(object, "speed"),
            course: try double(object, "course"), timestamp: timestamp
        )
    }

    private static func asset(from json: JSONValue) throws(ModelError) -> Asset {
        guard case .object(let object) = json else {
            throw ModelError(.invalidValue, "expected an ASSETID dictionary")
        }
        func string(_ key: String) -> String? {
            if case .string(let value)? = object[key] { return value }
            return nil
        }
        var size: Int64?
        switch object["size"] {
        case .integer(let value)?: size = value
        case .string(let value)?: size = Int64(value)
        default: size = nil
        }
        return Asset(
            assetID: string("assetID"), fileChecksum: string("fileChecksum"), size: size, referenceChecksum: string("referenceChecksum"),
            wrappingKey: string("wrappingKey"), receipt: string("receipt"), downloadURL: string("downloadURL")
        )
    }
}
