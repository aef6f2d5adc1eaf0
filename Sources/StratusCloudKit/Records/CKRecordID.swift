import Foundation
import StratusKit

extension CKRecord {
    public typealias ID = CKRecordID
    public typealias Reference = CKReference
}

/// Names a record: its name and its zone (`CKRecord.ID`).
public final class CKRecordID: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public let recordName: String
    public let zoneID: CKRecordZone.ID

    /// A record ID in the default zone.
    public convenience init(recordName: String) {
        self.init(recordName: recordName, zoneID: .default)
    }

    public init(recordName: String = UUID().uuidString, zoneID: CKRecordZone.ID) {
        self.recordName = recordName
        self.zoneID = zoneID
    }

    convenience init(_ id: Record.ID) {
        self.init(recordName: id.recordName, zoneID: CKRecordZone.ID(id.zoneID))
    }

    var stratus: Record.ID { Record.ID(recordName: recordName, zoneID: zoneID.stratus) }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(recordName as NSString, forKey: "recordName")
        coder.encode(zoneID, forKey: "zoneID")
    }

    public init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "recordName"),
            let zoneID = coder.decodeObject(of: CKRecordZone.ID.self, forKey: "zoneID")
        else { return nil }
        recordName = name as String
        self.zoneID = zoneID
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKRecordID else { return false }
        return recordName == other.recordName && zoneID == other.zoneID
    }

    public override var hash: Int { recordName.hashValue ^ zoneID.hash }

    public override var description: String { "<CKRecordID: recordName=\(recordName), zoneID=\(zoneID.zoneName):\(zoneID.ownerName)>" }
}

/// A field or a parent pointing at another record; `.deleteSelf` deletes this record with its target
/// (`CKRecord.Reference`).
public final class CKReference: NSObject, NSSecureCoding, NSCopying, CKRecordValueProtocol, @unchecked Sendable {
    public enum Action: UInt, Sendable {
        case none = 0
        case deleteSelf = 1
    }

    public let recordID: CKRecord.ID
    public let action: Action

    public init(recordID: CKRecord.ID, action: Action) {
        self.recordID = recordID
        self.action = action
    }

    public convenience init(record: CKRecord, action: Action) {
        self.init(recordID: record.recordID, action: action)
    }

    init(_ reference: Record.Reference) {
        recordID = CKRecord.ID(reference.recordID)
        action = reference.action == .deleteSelf ? .deleteSelf : .none
    }

    var stratus: Record.Reference {
        Record.Reference(recordID: recordID.stratus, action: action == .deleteSelf ? .deleteSelf : .none)
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(recordID, forKey: "recordID")
        coder.encode(Int64(action.rawValue), forKey: "action")
    }

    public init?(coder: NSCoder) {
        guard let recordID = coder.decodeObject(of: CKRecord.ID.self, forKey: "recordID") else { return nil }
        self.recordID = recordID
        action = Action(rawValue: UInt(coder.decodeInt64(forKey: "action"))) ?? .none
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKReference else { return false }
        return recordID == other.recordID && action == other.action
    }

    public override var hash: Int { recordID.hash }
}

/// A file kept with a record: made from a local file, which is uploaded when the record is saved; a fetched
/// record's asset is downloaded to a local file.
public final class CKAsset: NSObject, CKRecordValueProtocol, @unchecked Sendable {
    /// Where the asset's content is on this device.
    public let fileURL: URL?
    let stratus: Asset

    public init(fileURL: URL) {
        self.fileURL = fileURL
        stratus = Asset(fileURL: fileURL)
    }

    init(_ asset: Asset) {
        fileURL = asset.fileURL
        stratus = asset
    }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKAsset else { return false }
        return stratus == other.stratus
    }

    public override var hash: Int { stratus.hashValue }
}
