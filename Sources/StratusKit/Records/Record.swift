import Foundation

/// A record: a type, an ID, typed fields and system fields (`CKRecord`).
///
/// ```swift
/// var note = Record(recordType: "Note", recordID: Record.ID(recordName: "n1", zoneID: zone.zoneID))
/// note["title"] = "Groceries"
/// note["done"] = false
/// note["due"] = Date.now
/// let saved = try await container.privateCloudDatabase.save(note)
/// let title: String? = saved["title"]
/// ```
public struct Record: Sendable, Hashable {
    /// Names a record: its name and its zone (`CKRecord.ID`).
    public struct ID: Sendable, Hashable, CustomStringConvertible {
        public var recordName: String
        public var zoneID: Zone.ID

        public init(recordName: String = UUID().uuidString, zoneID: Zone.ID = .default) {
            self.recordName = recordName
            self.zoneID = zoneID
        }

        public var description: String { "\(recordName) in \(zoneID)" }
    }

    public var recordID: ID
    public var recordType: String
    /// Changes on every save; `nil` for a record the server has not seen yet.
    public internal(set) var recordChangeTag: String?
    public internal(set) var creationDate: Date?
    public internal(set) var modificationDate: Date?
    public internal(set) var creatorUserRecordID: ID?
    public internal(set) var lastModifiedUserRecordID: ID?
    /// The record above this one in a share's hierarchy (same zone).
    public var parent: Reference?
    /// The share that shares this record, when it is a share's root.
    public internal(set) var share: Reference?

    /// The fields, by name.
    public internal(set) var values: [String: FieldValue]
    /// Fields set or removed since the record was fetched or created.
    public internal(set) var changedKeys: Set<String> = []
    /// The fields as last fetched: the base of a conflict (``StratusError/ancestorRecord``).
    var fetchedValues: [String: FieldValue]?
    /// The parent as last fetched, so that removing it is sent.
    var fetchedParent: String?
    /// Share records: what makes them a share.
    var shareState: Share.State?

    public init(recordType: String, recordID: ID = ID()) {
        self.recordType = recordType
        self.recordID = recordID
        self.values = [:]
    }

    /// Every field name with a value.
    public var allKeys: [String] { values.keys.sorted() }

    /// A field's value as any supported type; `nil` removes the field.
    public subscript(key: String) -> FieldValue? {
        get { values[key] }
        set {
            values[key] = newValue
            changedKeys.insert(key)
        }
    }

    /// A field's value as a given type: `let title: String? = record["title"]`, `record["count"] = 3`.
    /// Reading a field of another type answers `nil`.
    public subscript<Value: RecordValue>(key: String) -> Value? {
        get { values[key].flatMap(Value.init(fieldValue:)) }
        set { self[key] = newValue?.fieldValue }
    }
}
