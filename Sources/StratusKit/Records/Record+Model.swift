import Foundation
internal import StratusModel

/// The SDK's records as StratusModel's wire types, which define every JSON shape (`docs/protocol.md#records-and-fields`).
extension Record {
    /// A record of an answer. `currentUser` names the signed-in user, whose zones read as ``Zone/ID/currentUser``.
    init(model: StratusModel.Record, currentUser: String?) throws {
        let zoneID = Zone.ID(model: model.zoneID, currentUser: currentUser)
        self.init(recordType: model.recordType, recordID: ID(recordName: model.recordName, zoneID: zoneID))
        recordChangeTag = model.recordChangeTag
        if model.created.timestamp > 0 || !model.created.userRecordName.isEmpty {
            creationDate = Date(milliseconds: model.created.timestamp)
            creatorUserRecordID = ID(recordName: model.created.userRecordName)
        }
        if model.modified.timestamp > 0 || !model.modified.userRecordName.isEmpty {
            modificationDate = Date(milliseconds: model.modified.timestamp)
            lastModifiedUserRecordID = ID(recordName: model.modified.userRecordName)
        }
        if let parentName = model.parent {
            parent = Reference(recordID: ID(recordName: parentName, zoneID: zoneID))
            fetchedParent = parentName
        }
        if let shareName = model.share {
            share = Reference(recordID: ID(recordName: shareName, zoneID: zoneID))
        }
        let fields: [String: StratusModel.FieldValue]
        do {
            fields = try model.fields.decode()
        } catch {
            throw StratusError(.internalError, "a field in the server's answer cannot be read: \(error)")
        }
        values = fields.mapValues { FieldValue(model: $0, currentUser: currentUser) }
        fetchedValues = values
        if let details = model.shareDetails {
            shareState = Share.State(model: details, currentUser: currentUser)
        }
    }

    /// The record to save: every field, or only `keys`.
    func input(keys: Set<String>? = nil) -> RecordInput {
        var fields: [String: FieldInput] = [:]
        for name in keys ?? Set(values.keys).union(changedKeys) {
            fields[name] = values[name]?.input ?? FieldInput(value: .null)
        }
        var input = RecordInput(recordName: recordID.recordName, recordType: recordType, recordChangeTag: recordChangeTag, fields: fields)
        if let parent {
            input.parent = .set(parent.recordID.recordName)
        } else if fetchedParent != nil {
            input.parent = .removed
        }
        shareState?.write(into: &input)
        return input
    }
}

extension Zone.ID {
    init(model: ZoneID, currentUser: String?) {
        let owner = model.ownerRecordName
        self.init(
            zoneName: model.zoneName,
            ownerName: owner == nil || owner == currentUser || owner == "_defaultOwner" ? Zone.ID.currentUser : owner!
        )
    }

    /// The wire zone ID; the current user's zones name no owner.
    var model: ZoneID {
        ZoneID(zoneName: zoneName, ownerRecordName: ownerName == Zone.ID.currentUser ? nil : ownerName)
    }
}

extension FieldValue {
    /// A `{value, type?}` as sent (a saved subscription's filter), read as its type or the one its shape shows.
    init?(input: FieldInput, currentUser: String?) {
        guard let type = (try? input.declaredType()) ?? StratusModel.FieldValue.inferredType(of: input.value),
            let model = try? StratusModel.FieldValue(json: input.value, as: type)
        else { return nil }
        self.init(model: model, currentUser: currentUser)
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
            let zone = value.zoneID.map { Zone.ID(model: $0, currentUser: currentUser) } ?? .default
            let action: Record.Reference.Action = switch value.action {
            case .deleteSelf: .deleteSelf
            case .validate: .validate
            case .none: .none
            }
            self = .reference(Record.Reference(recordID: Record.ID(recordName: value.recordName, zoneID: zone), action: action))
        case .asset(let value):
            self = .asset(Asset(downloadURL: value.downloadURL.flatMap(URL.init(string:)), fileChecksum: value.fileChecksum, size: value.size))
        case .list(_, let values):
            self = .list(values.map { FieldValue(model: $0, currentUser: currentUser) })
        }
    }

    /// The wire value; `nil` for an empty list, whose element type the SDK does not know.
    var model: StratusModel.FieldValue? {
        switch self {
        case .string(let value): return .string(value)
        case .int64(let value): return .int64(value)
        case .double(let value): return .double(value)
        case .bool(let value): return .boolean(value)
        case .date(let value): return .timestamp(value.milliseconds)
        case .bytes(let value): return .bytes(value)
        case .localizedString(let value): return .localizedString(value.translations)
        case .location(let value):
            return .location(StratusModel.Location(
                latitude: value.latitude, longitude: value.longitude, horizontalAccuracy: value.horizontalAccuracy, altitude: value.altitude
            ))
        case .reference(let value):
            let action: StratusModel.Reference.Action = switch value.action {
            case .deleteSelf: .deleteSelf
            case .validate: .validate
            case .none: .none
            }
            return .reference(StratusModel.Reference(recordName: value.recordID.recordName, zoneID: value.recordID.zoneID.model, action: action))
        case .asset(let value):
            // What an upload answered (or what was fetched): never the download URL, which is the server's.
            return .asset(StratusModel.Asset(fileChecksum: value.fileChecksum, size: value.size, receipt: value.receipt))
        case .list(let values):
            let elements = values.compactMap(\.model)
            guard let first = elements.first, elements.count == values.count else { return nil }
            return .list(first.type.scalar, elements)
        }
    }

    /// `{value, type?}` to save. The type is named only where the value's shape would be read as another type
    /// (a whole-number DOUBLE, a TIMESTAMP), so the schema's type decides the rest; an empty list goes without one.
    var input: FieldInput {
        guard let model else { return FieldInput(value: .array([])) }
        var writer = JSONWriter()
        model.writeValue(to: &writer)
        // The writer's output is valid JSON by construction.
        let value = (try? JSONParser.parse(writer.bytes)) ?? .null
        let shown = StratusModel.FieldValue.inferredType(of: value) == model.type
        return FieldInput(value: value, type: shown ? nil : model.type.wireName)
    }
}
