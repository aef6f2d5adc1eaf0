import Foundation
import StratusKit

/// A subscription's push, read from the payload an app receives: `CKNotification(fromRemoteNotificationDictionary:)`
/// answers a ``CKQueryNotification``, ``CKRecordZoneNotification`` or ``CKDatabaseNotification``, as CloudKit's does.
open class CKNotification: NSObject, @unchecked Sendable {
    public enum NotificationType: Int, Sendable {
        case query = 1
        case recordZone = 2
        case readNotification = 3
        case database = 4
    }

    /// Names a notification.
    public final class ID: NSObject, @unchecked Sendable {
        let value: String

        init(_ value: String) {
            self.value = value
        }

        public override func isEqual(_ object: Any?) -> Bool { (object as? ID)?.value == value }
        public override var hash: Int { value.hashValue }
        public override var description: String { value }
    }

    public let notificationType: NotificationType
    public let notificationID: ID?
    public let containerIdentifier: String?
    public let subscriptionID: CKSubscription.ID?
    /// Whether the server left out part of the payload (it never does).
    public let isPruned = false
    public let alertBody: String?
    public let title: String?
    public let subtitle: String? = nil
    public let soundName: String?
    public let badge: NSNumber?

    init(_ notification: SubscriptionNotification, type: NotificationType) {
        notificationType = type
        notificationID = notification.notificationID.map(ID.init)
        containerIdentifier = notification.containerIdentifier
        subscriptionID = notification.subscriptionID
        alertBody = notification.alertBody
        title = notification.title
        soundName = notification.soundName
        badge = notification.badge.map { NSNumber(value: $0) }
    }

    /// The notification of a payload as CloudKit reads it, of its subclass; `nil` for a payload that is not a
    /// subscription's.
    static func make(_ payload: [AnyHashable: Any]) -> CKNotification? {
        guard let notification = SubscriptionNotification(remoteNotification: payload) else { return nil }
        let scope = notification.databaseScope.map(CKDatabase.Scope.init) ?? .private
        switch notification.kind {
        case .query(let recordID, let reason, let fields):
            return CKQueryNotification(notification, recordID: CKRecord.ID(recordID), reason: reason, fields: fields, scope: scope)
        case .recordZone(let zoneID):
            return CKRecordZoneNotification(notification, zoneID: CKRecordZone.ID(zoneID), scope: scope)
        case .database:
            return CKDatabaseNotification(notification, scope: scope)
        }
    }
}

/// `CKNotification(fromRemoteNotificationDictionary:)` gives the notification's own subclass, as CloudKit's
/// factory does (a protocol's initializer may answer an instance of a subclass).
public protocol CKNotificationFromPayload {}

extension CKNotification: CKNotificationFromPayload {}

extension CKNotificationFromPayload where Self: CKNotification {
    public init?(fromRemoteNotificationDictionary notificationDictionary: [AnyHashable: Any]) {
        guard let made = CKNotification.make(notificationDictionary) as? Self else { return nil }
        self = made
    }
}

/// A record matching a query subscription was created, updated or deleted.
open class CKQueryNotification: CKNotification, @unchecked Sendable {
    public enum Reason: Int, Sendable {
        case recordCreated = 1
        case recordUpdated = 2
        case recordDeleted = 3
    }

    public let queryNotificationReason: Reason
    /// The subscription's desired keys of the record.
    public let recordFields: [String: Any]?
    public let recordID: CKRecord.ID?
    public let databaseScope: CKDatabase.Scope

    init(
        _ notification: SubscriptionNotification, recordID: CKRecord.ID,
        reason: SubscriptionNotification.Reason, fields: [String: FieldValue], scope: CKDatabase.Scope
    ) {
        queryNotificationReason = Reason(rawValue: reason.rawValue) ?? .recordUpdated
        recordFields = fields.isEmpty ? nil : fields.compactMapValues { RecordValues.object($0) as Any? }
        self.recordID = recordID
        databaseScope = scope
        super.init(notification, type: .query)
    }
}

/// Something changed in a zone of a zone subscription.
open class CKRecordZoneNotification: CKNotification, @unchecked Sendable {
    public let recordZoneID: CKRecordZone.ID?
    public let databaseScope: CKDatabase.Scope

    init(_ notification: SubscriptionNotification, zoneID: CKRecordZone.ID, scope: CKDatabase.Scope) {
        recordZoneID = zoneID
        databaseScope = scope
        super.init(notification, type: .recordZone)
    }
}

/// Something changed in the database of a database subscription.
open class CKDatabaseNotification: CKNotification, @unchecked Sendable {
    public let databaseScope: CKDatabase.Scope

    init(_ notification: SubscriptionNotification, scope: CKDatabase.Scope) {
        databaseScope = scope
        super.init(notification, type: .database)
    }
}

extension CKDatabase.Scope {
    init(_ scope: Database.Scope) {
        switch scope {
        case .public: self = .public
        case .private: self = .private
        case .shared: self = .shared
        }
    }
}
