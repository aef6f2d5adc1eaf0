import Foundation
internal import StratusModel

/// A notification a subscription fired (`CKNotification`), as the server's stream delivers it.
public struct SubscriptionNotification: Sendable, Hashable {
    /// Why a query subscription fired.
    public enum Reason: Int, Sendable, Hashable {
        case recordCreated = 1, recordUpdated = 2, recordDeleted = 3
    }

    /// What changed.
    public enum Kind: Sendable, Hashable {
        /// A record matching a query subscription; `recordFields` holds the subscription's desired keys.
        case query(recordID: Record.ID, reason: Reason, recordFields: [String: FieldValue])
        /// Something in a zone of a zone subscription.
        case recordZone(Zone.ID)
        /// Something in the database of a database subscription.
        case database
    }

    /// The notification's place in the user's stream: resume after it with ``Container/notifications(after:)``.
    public var sequenceNumber: Int64
    public var notificationID: String?
    public var subscriptionID: String?
    public var containerIdentifier: String?
    public var databaseScope: Database.Scope?
    public var alertBody: String?
    public var kind: Kind

    /// Reads a CloudKit payload (`{aps, ck}`).
    init?(sequenceNumber: Int64, payload: [String: JSONValue], currentUser: String?) {
        guard let ck = payload["ck"]?.objectValue else { return nil }
        self.sequenceNumber = sequenceNumber
        notificationID = ck["nid"]?.stringValue
        containerIdentifier = ck["cid"]?.stringValue
        let alert = payload["aps"]?.objectValue?["alert"]
        alertBody = alert?.stringValue ?? alert?.objectValue?["body"]?.stringValue
        let detail: [String: JSONValue]
        if let query = ck["qry"]?.objectValue {
            detail = query
            let zoneID = Self.zoneID(query, currentUser: currentUser)
            var fields: [String: FieldValue] = [:]
            for (name, value) in query["af"]?.objectValue ?? [:] {
                fields[name] = FieldValue(inferring: value, currentUser: currentUser)
            }
            kind = .query(
                recordID: Record.ID(recordName: query["rid"]?.stringValue ?? "", zoneID: zoneID),
                reason: Reason(rawValue: Int(query["fo"]?.integerValue ?? 1)) ?? .recordCreated, recordFields: fields
            )
        } else if let zone = ck["fet"]?.objectValue {
            detail = zone
            kind = .recordZone(Self.zoneID(zone, currentUser: currentUser))
        } else if let database = ck["met"]?.objectValue {
            detail = database
            kind = .database
        } else {
            return nil
        }
        subscriptionID = detail["sid"]?.stringValue
        databaseScope = switch detail["dbs"]?.integerValue {
        case 1: .public
        case 2: .private
        case 3: .shared
        default: nil
        }
    }

    private static func zoneID(_ detail: [String: JSONValue], currentUser: String?) -> Zone.ID {
        Zone.ID(
            model: ZoneID(zoneName: detail["zid"]?.stringValue ?? ZoneID.defaultZoneName, ownerRecordName: detail["zoid"]?.stringValue),
            currentUser: currentUser
        )
    }
}

/// Splits a server-sent event stream into events (`id`, `data`), across chunk boundaries.
struct EventStreamParser {
    struct Event: Equatable {
        var id: String?
        var data: String
    }

    private var pending = Data()
    private var current = Event(id: nil, data: "")

    /// The events completed by a chunk.
    mutating func feed(_ chunk: Data) -> [Event] {
        pending.append(chunk)
        var events: [Event] = []
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            var line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
            pending.removeSubrange(pending.startIndex...newline)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty {
                if !current.data.isEmpty { events.append(current) }
                current = Event(id: nil, data: "")
            } else if line.hasPrefix(":") {
                continue
            } else {
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let field = String(parts[0])
                var value = parts.count > 1 ? String(parts[1]) : ""
                if value.hasPrefix(" ") { value.removeFirst() }
                switch field {
                case "id": current.id = value
                case "data": current.data += current.data.isEmpty ? value : "\n" + value
                default: break
                }
            }
        }
        return events
    }
}
