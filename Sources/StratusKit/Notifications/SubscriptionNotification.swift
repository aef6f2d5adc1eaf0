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
    /// The alert's title, its sound and the badge it sets, as the push carries them.
    public var title: String?
    public var soundName: String?
    public var badge: Int64?
    public var kind: Kind

    /// A CloudKit payload (`{aps, ck}`) as the stream delivered it.
    init(sequenceNumber: Int64, payload: NotificationPayload, currentUser: String?) {
        self.sequenceNumber = sequenceNumber
        notificationID = payload.notificationID
        subscriptionID = payload.subscriptionID
        containerIdentifier = payload.containerIdentifier
        databaseScope = Database.Scope(rawValue: payload.databaseScope.rawValue)
        alertBody = payload.aps.alert?.body
        title = payload.aps.alert?.title
        soundName = payload.aps.sound
        badge = payload.aps.badge
        switch payload.subject {
        case .query(let recordName, let zoneID, let reason, let fields):
            kind = .query(
                recordID: Record.ID(recordName: recordName, zoneID: Zone.ID(model: zoneID, currentUser: currentUser)),
                reason: Reason(rawValue: Int(reason.rawValue)) ?? .recordUpdated,
                recordFields: fields.mapValues { FieldValue(model: $0, currentUser: currentUser) }
            )
        case .zone(let zoneID):
            kind = .recordZone(Zone.ID(model: zoneID, currentUser: currentUser))
        case .database:
            kind = .database
        }
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

extension SubscriptionNotification {
    /// A push's payload as an app receives it (`{aps, ck}`), for layers that read pushes delivered outside the
    /// stream; `nil` when it is not a notification of a subscription. Zones of `currentUser` (by default the
    /// subscription's owner the payload names) read as ``Zone/ID/currentUser``'s.
    package init?(remoteNotification: [AnyHashable: Any], currentUser: String? = nil) {
        var dictionary: [String: Any] = [:]
        for (key, value) in remoteNotification {
            guard let key = key as? String else { continue }
            dictionary[key] = value
        }
        guard JSONSerialization.isValidJSONObject(dictionary), let data = try? JSONSerialization.data(withJSONObject: dictionary),
            let payload = try? JSONDecoder().decode(NotificationPayload.self, from: data)
        else { return nil }
        // The push goes to the subscription's owner (`ckuserid`): their own zones read as the current user's.
        self.init(sequenceNumber: 0, payload: payload, currentUser: currentUser ?? payload.userRecordName)
    }
}
