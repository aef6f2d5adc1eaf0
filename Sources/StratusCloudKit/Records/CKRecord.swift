import Foundation
import StratusKit

/// A record, as CloudKit's class: a type, an ID, fields read and set with `CKRecordValue`s, and the system fields
/// the server keeps. `record["title"] as? String`, `record["count"] as? Int` and `record["tags"] as? [String]`
/// read as they do on Apple's platforms.
open class CKRecord: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public typealias RecordType = String
    public typealias FieldKey = String

    private let lock = NSLock()
    private var storage: Record

    public convenience init(recordType: RecordType) {
        self.init(recordType: recordType, recordID: ID(recordName: UUID().uuidString))
    }

    public convenience init(recordType: RecordType, zoneID: CKRecordZone.ID) {
        self.init(recordType: recordType, recordID: ID(recordName: UUID().uuidString, zoneID: zoneID))
    }

    public init(recordType: RecordType, recordID: ID) {
        storage = Record(recordType: recordType, recordID: recordID.stratus)
    }

    init(_ record: Record) {
        storage = record
    }

    /// A record the server answered, as the class CloudKit gives it: a ``CKShare`` for a share.
    static func made(from record: Record) -> CKRecord {
        record.recordType == Share.recordType ? CKShare(record) : CKRecord(record)
    }

    /// The record as StratusKit keeps it.
    final var stored: Record { lock.withLock { storage } }

    /// The record as it is to be saved and archived (a share adds its participants); reads use ``stored``.
    var stratus: Record { stored }

    /// Changes the record as StratusKit keeps it.
    func update(_ change: (inout Record) -> Void) {
        lock.withLock { change(&storage) }
    }

    // MARK: - System fields

    public var recordType: RecordType { stored.recordType }
    public var recordID: ID { ID(stored.recordID) }
    /// Changes on every save; `nil` until the server has the record.
    public var recordChangeTag: String? { stored.recordChangeTag }
    public var creationDate: Date? { stored.creationDate }
    public var modificationDate: Date? { stored.modificationDate }
    public var creatorUserRecordID: ID? { stored.creatorUserRecordID.map(ID.init) }
    public var lastModifiedUserRecordID: ID? { stored.lastModifiedUserRecordID.map(ID.init) }
    /// The share that shares this record, when it is a share's root.
    public var share: Reference? { stored.share.map(Reference.init) }

    /// The record above this one in a share's hierarchy (in the same zone).
    public var parent: Reference? {
        get { stored.parent.map(Reference.init) }
        set { lock.withLock { storage.parent = newValue?.stratus } }
    }

    public func setParent(_ parentRecord: CKRecord?) {
        setParent(parentRecord?.recordID)
    }

    public func setParent(_ parentRecordID: ID?) {
        parent = parentRecordID.map { Reference(recordID: $0, action: .none) }
    }

    // MARK: - Fields

    public func object(forKey key: FieldKey) -> (any CKRecordValue)? {
        stored.values[key].flatMap(RecordValues.object)
    }

    /// Sets a field; `nil` removes it. A value of a type no field holds stops the app, as CloudKit does.
    public func setObject(_ object: (any CKRecordValue)?, forKey key: FieldKey) {
        guard let object else {
            lock.withLock { storage[key] = nil }
            return
        }
        guard let value = RecordValues.field(object) else {
            preconditionFailure("CKRecord: a field cannot hold a \(type(of: object)) (key \(key))")
        }
        lock.withLock { storage[key] = value }
    }

    public subscript(key: FieldKey) -> (any CKRecordValue)? {
        get { object(forKey: key) }
        set { setObject(newValue, forKey: key) }
    }

    public subscript<T: CKRecordValueProtocol>(key: FieldKey) -> T? {
        get { object(forKey: key) as? T }
        set { setObject(newValue, forKey: key) }
    }

    /// Every field name with a value.
    public func allKeys() -> [FieldKey] { stored.allKeys }

    /// The fields set or removed since the record was fetched or made.
    public func changedKeys() -> [FieldKey] { stored.changedKeys.sorted() }

    /// The words of the record's string fields, as CloudKit tokenizes them for `self CONTAINS` queries.
    public func allTokens() -> [String] {
        stored.values.values.flatMap { value -> [String] in
            guard case .string(let text) = value else { return [] }
            return text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        }
    }

    /// Fields CloudKit would encrypt end to end. A Stratus server keeps them as other fields, under its own
    /// access rules (docs/cloudkit.md says so); reading and writing them works as in CloudKit.
    public var encryptedValues: any CKRecordKeyValueSetting { EncryptedValues(record: self) }

    // MARK: - Archiving

    public static var supportsSecureCoding: Bool { true }

    /// Keeps the system fields alone; `CKRecord(coder:)` makes from them a record that saves as an edit of this
    /// version (apps keep them beside their own copy of the fields).
    public func encodeSystemFields(with coder: NSCoder) {
        coder.encode(stored.systemFieldsOnly().storageData() as NSData, forKey: "record")
    }

    public func encode(with coder: NSCoder) {
        coder.encode(stratus.storageData() as NSData, forKey: "record")
    }

    public required init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: "record"),
            let record = try? Record(storageData: data as Data)
        else { return nil }
        storage = record
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        CKRecord.made(from: stratus)
    }

    public override var description: String {
        "<CKRecord: recordType=\(recordType), recordID=\(recordID.recordName):(\(recordID.zoneID.zoneName):\(recordID.zoneID.ownerName)), recordChangeTag=\(recordChangeTag ?? "nil"), values=\(allKeys())>"
    }
}

/// Reading and writing a record's fields by key (`CKRecord.encryptedValues`).
public protocol CKRecordKeyValueSetting {
    subscript(key: String) -> (any CKRecordValue)? { get nonmutating set }
    func object(forKey key: String) -> (any CKRecordValue)?
    func setObject(_ object: (any CKRecordValue)?, forKey key: String)
    func allKeys() -> [String]
    func changedKeys() -> [String]
}

extension CKRecordKeyValueSetting {
    public subscript<T: CKRecordValueProtocol>(key: String) -> T? {
        get { object(forKey: key) as? T }
        nonmutating set { setObject(newValue, forKey: key) }
    }
}

extension CKRecord: CKRecordKeyValueSetting {}

private struct EncryptedValues: CKRecordKeyValueSetting {
    let record: CKRecord

    subscript(key: String) -> (any CKRecordValue)? {
        get { record.object(forKey: key) }
        nonmutating set { record.setObject(newValue, forKey: key) }
    }

    func object(forKey key: String) -> (any CKRecordValue)? { record.object(forKey: key) }
    func setObject(_ object: (any CKRecordValue)?, forKey key: String) { record.setObject(object, forKey: key) }
    func allKeys() -> [String] { record.allKeys() }
    func changedKeys() -> [String] { record.changedKeys() }
}
