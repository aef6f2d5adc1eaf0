/// One difference between two schemas, as deploying one over the other would make it.
public struct SchemaChange: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable, Codable {
        case addRole, removeRole, addRecordType, removeRecordType, addField, removeField, changeFieldType
        case addIndex, removeIndex, changeGrants, changeConstraints
    }

    public var kind: Kind
    public var recordType: String?
    public var field: String?
    /// What changed, in words.
    public var description: String

    /// Whether production may take this change: removing types or fields, and changing a field's type,
    /// would lose or misread data that production already holds.
    public var isAdditive: Bool {
        switch kind {
        case .removeRecordType, .removeField, .changeFieldType: false
        default: true
        }
    }

    /// The changes that turn `old` into `new`, in a stable order.
    public static func changes(from old: Schema, to new: Schema) -> [SchemaChange] {
        var changes: [SchemaChange] = []
        for role in new.roles.subtracting(old.roles).sorted() {
            changes.append(SchemaChange(kind: .addRole, description: "add role \(role)"))
        }
        for role in old.roles.subtracting(new.roles).sorted() {
            changes.append(SchemaChange(kind: .removeRole, description: "remove role \(role)"))
        }
        for name in Set(old.recordTypes.keys).union(new.recordTypes.keys).sorted() {
            switch (old.recordTypes[name], new.recordTypes[name]) {
            case (nil, _?):
                changes.append(SchemaChange(kind: .addRecordType, recordType: name, description: "add record type \(name)"))
            case (_?, nil):
                changes.append(SchemaChange(kind: .removeRecordType, recordType: name, description: "remove record type \(name)"))
            case (let before?, let after?):
                changes += recordTypeChanges(before, after)
            case (nil, nil):
                break
            }
        }
        return changes
    }

    private static func recordTypeChanges(_ old: RecordTypeSchema, _ new: RecordTypeSchema) -> [SchemaChange] {
        let type = new.name
        var changes: [SchemaChange] = []
        for name in Set(old.fields.keys).union(new.fields.keys).sorted() {
            switch (old.fields[name], new.fields[name]) {
            case (nil, let field?):
                changes.append(SchemaChange(kind: .addField, recordType: type, field: name, description: "add field \(type).\(name) \(field.type.wireName)"))
            case (let field?, nil):
                changes.append(SchemaChange(kind: .removeField, recordType: type, field: name, description: "remove field \(type).\(name) \(field.type.wireName)"))
            case (let before?, let after?):
                if before.type != after.type || before.isEncrypted != after.isEncrypted {
                    changes.append(SchemaChange(
                        kind: .changeFieldType, recordType: type, field: name,
                        description: "change the type of \(type).\(name) from \(describe(before)) to \(describe(after))"
                    ))
                }
                changes += indexChanges(type, name, before.indexes, after.indexes)
                if before.constraints != after.constraints {
                    changes.append(SchemaChange(kind: .changeConstraints, recordType: type, field: name, description: "change the constraints of \(type).\(name)"))
                }
            case (nil, nil):
                break
            }
        }
        for system in RecordTypeSchema.systemFields {
            changes += indexChanges(type, system.name, old.systemFieldIndexes[system.name] ?? [], new.systemFieldIndexes[system.name] ?? [])
        }
        for index in new.compoundIndexes where !old.compoundIndexes.contains(index) {
            changes.append(SchemaChange(kind: .addIndex, recordType: type, field: index.name, description: "add INDEX (\(index.name)) on \(type)"))
        }
        for index in old.compoundIndexes where !new.compoundIndexes.contains(index) {
            changes.append(SchemaChange(kind: .removeIndex, recordType: type, field: index.name, description: "remove INDEX (\(index.name)) on \(type)"))
        }
        if old.grants != new.grants {
            changes.append(SchemaChange(kind: .changeGrants, recordType: type, description: "change the grants of \(type)"))
        }
        return changes
    }

    private static func indexChanges(_ type: String, _ field: String, _ old: FieldIndexes, _ new: FieldIndexes) -> [SchemaChange] {
        let names: [(FieldIndexes, String)] = [(.queryable, "QUERYABLE"), (.searchable, "SEARCHABLE"), (.sortable, "SORTABLE")]
        return names.compactMap { index, name in
            if new.contains(index) && !old.contains(index) {
                return SchemaChange(kind: .addIndex, recordType: type, field: field, description: "add \(name) index on \(type).\(field)")
            }
            if old.contains(index) && !new.contains(index) {
                return SchemaChange(kind: .removeIndex, recordType: type, field: field, description: "remove \(name) index on \(type).\(field)")
            }
            return nil
        }
    }

    private static func describe(_ field: FieldSchema) -> String {
        (field.isEncrypted ? "ENCRYPTED " : "") + field.type.wireName
    }
}
