import Foundation
internal import StratusModel

/// Reading and writing records in the wire format (`ckws-protocol.md` §2).
extension Record {
    /// Reads a record dictionary. `currentUser` names the signed-in user, whose zones read as
    /// ``Zone/ID/currentUser``.
    init(wire object: [String: JSONValue], currentUser: String?) throws {
        guard case .string(let name)? = object["recordName"] else {
            throw StratusError(.internalError, "a record in the server's answer has no recordName")
        }
        let zoneID = Zone.ID(wire: object["zoneID"], currentUser: currentUser)
        self.init(recordType: object["recordType"]?.stringValue ?? "", recordID: ID(recordName: name, zoneID: zoneID))
        recordChangeTag = object["recordChangeTag"]?.stringValue
        if let created = object["created"]?.objectValue {
            creationDate = created["timestamp"]?.integerValue.map(Date.init(milliseconds:))
            creatorUserRecordID = created["userRecordName"]?.stringValue.map { ID(recordName: $0) }
        }
        if let modified = object["modified"]?.objectValue {
            modificationDate = modified["timestamp"]?.integerValue.map(Date.init(milliseconds:))
            lastModifiedUserRecordID = modified["userRecordName"]?.stringValue.map { ID(recordName: $0) }
        }
        if let parentName = object["parent"]?.objectValue?["recordName"]?.stringValue {
            parent = Reference(recordID: ID(recordName: parentName, zoneID: zoneID))
            fetchedParent = parentName
        }
        if let shareName = object["share"]?.objectValue?["recordName"]?.stringValue {
            share = Reference(recordID: ID(recordName: shareName, zoneID: zoneID))
        }
        var values: [String: FieldValue] = [:]
        for (field, entry) in object["fields"]?.objectValue ?? [:] {
            guard let entry = entry.objectValue, let value = entry["value"] else { continue }
            values[field] = try FieldValue(wire: value, type: entry["type"]?.stringValue, currentUser: currentUser)
        }
        self.values = values
        fetchedValues = values
        if recordType == Share.recordType {
            shareState = Share.State(wire: object, currentUser: currentUser)
        }
    }

    /// The record dictionary to save: every field, or only `keys`.
    func wire(keys: Set<String>? = nil) -> JSONValue {
        var object: [String: JSONValue] = [
            "recordName": .string(recordID.recordName),
            "recordType": .string(recordType),
        ]
        if let recordChangeTag { object["recordChangeTag"] = .string(recordChangeTag) }
        var fields: [String: JSONValue] = [:]
        for name in keys ?? Set(values.keys).union(changedKeys) {
            guard let value = values[name] else {
                fields[name] = .object(["value": .null])
                continue
            }
            fields[name] = value.wireEntry
        }
        object["fields"] = .object(fields)
        if let parent {
            object["parent"] = .object(["recordName": .string(parent.recordID.recordName)])
        } else if fetchedParent != nil {
            object["parent"] = .null
        }
        if let shareState {
            shareState.write(into: &object)
        }
        return .object(object)
    }
}

extension Zone.ID {
    init(wire: JSONValue?, currentUser: String?) {
        let object = wire?.objectValue ?? [:]
        let owner = object["ownerRecordName"]?.stringValue
        self.init(
            zoneName: object["zoneName"]?.stringValue ?? Zone.ID.defaultZoneName,
            ownerName: owner == nil || owner == currentUser || owner == "_defaultOwner" ? Zone.ID.currentUser : owner!
        )
    }

    /// `{zoneName, ownerRecordName?}`; the current user's zones name no owner.
    var wire: JSONValue {
        var object: [String: JSONValue] = ["zoneName": .string(zoneName)]
        if ownerName != Zone.ID.currentUser { object["ownerRecordName"] = .string(ownerName) }
        return .object(object)
    }
}

extension FieldValue {
    /// Reads a wire `value` of a wire `type` (or of the type its shape shows).
    init(wire value: JSONValue, type: String?, currentUser: String?) throws {
        guard let fieldType = type.flatMap(FieldType.init(wireName:)) ?? StratusModel.FieldValue.inferredType(of: value) else {
            throw StratusError(.internalError, "a field in the server's answer has an unknown type \(type ?? "")")
        }
        do {
            self.init(model: try StratusModel.FieldValue(json: value, as: fieldType), currentUser: currentUser)
        } catch {
            throw StratusError(.internalError, "a field in the server's answer cannot be read: \(error)")
        }
    }

    init(model: StratusModel.FieldValue, currentUser: String?) {
        switch model {
        case .string(let value): self = .string(value)
        case .int64(let value): self = .int64(value)
        case .double(let value): self = .double(value)
        case .bytes(let value): self = .bytes(value)
        case .timestamp(let value): self = .date(Date(milliseconds: value))
        case .boolean(let value): self = .bool(value)
        case .localizedString(let value): self = .localizedString(LocalizedString(value))
        case .location(let value):
            self = .location(Location(latitude: value.latitude, longitude: value.longitude, horizontalAccuracy: value.horizontalAccuracy, altitude: value.altitude))
        case .reference(let value):
            let zone = value.zoneID.map { zoneID in
                Zone.ID(wire: .object(["zoneName": .string(zoneID.zoneName), "ownerRecordName": zoneID.ownerRecordName.map(JSONValue.string) ?? .null]), currentUser: currentUser)
            } ?? .default
            let action: Record.Reference.Action = switch value.action {
            case .deleteSelf: .deleteSelf
            case .validate: .validate
            default: .none
            }
            self = .reference(Record.Reference(recordID: Record.ID(recordName: value.recordName, zoneID: zone), action: action))
        case .asset(let value):
            self = .asset(Asset(downloadURL: value.downloadURL.flatMap(URL.init(string:)), fileChecksum: value.fileChecksum, size: value.size))
        case .list(_, let values):
            self = .list(values.map { FieldValue(model: $0, currentUser: currentUser) })
        }
    }

    /// `{value, type?}`: the type is named where the value's shape would be read as another type.
    var wireEntry: JSONValue {
        var entry: [String: JSONValue] = ["value": wireValue]
        if let type = declaredType { entry["type"] = .string(type) }
        return .object(entry)
    }

    private var declaredType: String? {
        switch self {
        case .double: "DOUBLE"
        case .date: "TIMESTAMP"
        case .bytes: "BYTES"
        case .localizedString: "LOCALIZED_STRING"
        case .list(let values): values.first?.declaredType.map { $0 + "_LIST" }
        default: nil
        }
    }

    var wireValue: JSONValue {
        switch self {
        case .string(let value): return .string(value)
        case .int64(let value): return .integer(value)
        case .double(let value): return .double(value)
        case .bool(let value): return .bool(value)
        case .date(let value): return .integer(value.milliseconds)
        case .bytes(let value): return .string(value.base64EncodedString())
        case .localizedString(let value): return .object(value.translations.mapValues(JSONValue.string))
        case .location(let value):
            var object: [String: JSONValue] = ["latitude": .double(value.latitude), "longitude": .double(value.longitude)]
            if let accuracy = value.horizontalAccuracy { object["horizontalAccuracy"] = .double(accuracy) }
            if let altitude = value.altitude { object["altitude"] = .double(altitude) }
            return .object(object)
        case .reference(let value):
            return .object([
                "recordName": .string(value.recordID.recordName), "action": .string(value.action.rawValue),
                "zoneID": value.recordID.zoneID.wire,
            ])
        case .asset(let value):
            var object: [String: JSONValue] = [:]
            if let receipt = value.receipt { object["receipt"] = .string(receipt) }
            if let checksum = value.fileChecksum { object["fileChecksum"] = .string(checksum) }
            if let size = value.size { object["size"] = .integer(size) }
            return .object(object)
        case .list(let values): return .array(values.map(\.wireValue))
        }
    }
}

extension Date {
    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}

extension JSONValue {
    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .double(let value): Int64(exactly: value.rounded())
        case .string(let value): Int64(value)
        default: nil
        }
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}
