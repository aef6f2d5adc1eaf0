import Foundation
import StratusKit

/// What the server watches for a user and notifies about: records matching a query
/// (``CKQuerySubscription``), a zone (``CKRecordZoneSubscription``) or a database (``CKDatabaseSubscription``).
open class CKSubscription: NSObject, @unchecked Sendable {
    public typealias ID = String

    public enum SubscriptionType: Int, Sendable {
        case query = 1
        case recordZone = 2
        case database = 3
    }

    /// What a notification shows and carries.
    open class NotificationInfo: NSObject, @unchecked Sendable {
        open var alertBody: String?
        open var title: String?
        open var subtitle: String?
        open var soundName: String?
        /// Fields copied into the notification.
        open var desiredKeys: [CKRecord.FieldKey]?
        open var shouldBadge = false
        open var shouldSendContentAvailable = false
        open var shouldSendMutableContent = false
        open var category: String?
        open var collapseIDKey: String?
        open var alertLocalizationKey: String?
        open var alertLocalizationArgs: [CKRecord.FieldKey]?
        open var titleLocalizationKey: String?
        open var titleLocalizationArgs: [CKRecord.FieldKey]?

        public override init() {}

        init(_ info: Subscription.NotificationInfo) {
            alertBody = info.alertBody
            title = info.title
            soundName = info.soundName
            desiredKeys = info.desiredKeys
            shouldBadge = info.shouldBadge
            shouldSendContentAvailable = info.shouldSendContentAvailable
        }

        var stratus: Subscription.NotificationInfo {
            Subscription.NotificationInfo(
                alertBody: alertBody, title: title, soundName: soundName, desiredKeys: desiredKeys, shouldBadge: shouldBadge,
                shouldSendContentAvailable: shouldSendContentAvailable
            )
        }
    }

    public let subscriptionID: ID
    public let subscriptionType: SubscriptionType
    open var notificationInfo: NotificationInfo?

    init(subscriptionID: ID, type: SubscriptionType) {
        self.subscriptionID = subscriptionID
        subscriptionType = type
    }

    /// The subscription as StratusKit saves it; `invalidArguments` for a query CloudKit does not support.
    func stratus() throws -> Subscription {
        switch self {
        case let query as CKQuerySubscription: try query.querySubscription()
        case let zone as CKRecordZoneSubscription: Subscription(id: subscriptionID, kind: .zone(zone.zoneID.stratus), notificationInfo: notificationInfo?.stratus)
        default: Subscription(id: subscriptionID, kind: .database, notificationInfo: notificationInfo?.stratus)
        }
    }

    /// A subscription the server answered, as its CloudKit class.
    static func make(_ subscription: Subscription) -> CKSubscription {
        let made: CKSubscription
        switch subscription.kind {
        case .query(let query, let zoneID, let firesOn, let firesOnce):
            var options: CKQuerySubscription.Options = []
            if firesOn.contains(.create) { options.insert(.firesOnRecordCreation) }
            if firesOn.contains(.update) { options.insert(.firesOnRecordUpdate) }
            if firesOn.contains(.delete) { options.insert(.firesOnRecordDeletion) }
            if firesOnce { options.insert(.firesOnce) }
            let querySubscription = CKQuerySubscription(
                recordType: query.recordType, predicate: PredicateRendering.predicate(query.filter),
                subscriptionID: subscription.subscriptionID, options: options
            )
            querySubscription.zoneID = zoneID.map(CKRecordZone.ID.init)
            made = querySubscription
        case .zone(let zoneID):
            made = CKRecordZoneSubscription(zoneID: CKRecordZone.ID(zoneID), subscriptionID: subscription.subscriptionID)
        case .database:
            made = CKDatabaseSubscription(subscriptionID: subscription.subscriptionID)
        }
        made.notificationInfo = subscription.notificationInfo.map(NotificationInfo.init)
        return made
    }
}

/// Notifies about records of a type matching a predicate, as they are created, updated or deleted.
open class CKQuerySubscription: CKSubscription, @unchecked Sendable {
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let firesOnRecordCreation = Options(rawValue: 1 << 0)
        public static let firesOnRecordUpdate = Options(rawValue: 1 << 1)
        public static let firesOnRecordDeletion = Options(rawValue: 1 << 2)
        public static let firesOnce = Options(rawValue: 1 << 3)
    }

    public let recordType: CKRecord.RecordType?
    public let predicate: NSPredicate
    public let querySubscriptionOptions: Options
    /// The zone watched; `nil` watches the whole database.
    open var zoneID: CKRecordZone.ID?

    public convenience init(recordType: CKRecord.RecordType, predicate: NSPredicate, options querySubscriptionOptions: Options = []) {
        self.init(recordType: recordType, predicate: predicate, subscriptionID: UUID().uuidString, options: querySubscriptionOptions)
    }

    public init(recordType: CKRecord.RecordType, predicate: NSPredicate, subscriptionID: CKSubscription.ID, options querySubscriptionOptions: Options = []) {
        self.recordType = recordType
        self.predicate = predicate
        self.querySubscriptionOptions = querySubscriptionOptions
        super.init(subscriptionID: subscriptionID, type: .query)
    }

    fileprivate func querySubscription() throws -> Subscription {
        let query = try CKQuery(recordType: recordType ?? "", predicate: predicate).stratus()
        var firesOn: Set<Subscription.Trigger> = []
        if querySubscriptionOptions.contains(.firesOnRecordCreation) { firesOn.insert(.create) }
        if querySubscriptionOptions.contains(.firesOnRecordUpdate) { firesOn.insert(.update) }
        if querySubscriptionOptions.contains(.firesOnRecordDeletion) { firesOn.insert(.delete) }
        guard !firesOn.isEmpty else {
            throw CKError(.invalidArguments, userInfo: [NSLocalizedDescriptionKey: "a query subscription fires on creation, update or deletion: give at least one in its options"])
        }
        return Subscription(
            id: subscriptionID, query: query, zoneID: zoneID?.stratus, firesOn: firesOn, firesOnce: querySubscriptionOptions.contains(.firesOnce),
            notificationInfo: notificationInfo?.stratus
        )
    }
}

/// Notifies about every change in a custom zone.
open class CKRecordZoneSubscription: CKSubscription, @unchecked Sendable {
    public let zoneID: CKRecordZone.ID
    open var recordType: CKRecord.RecordType?

    public convenience init(zoneID: CKRecordZone.ID) {
        self.init(zoneID: zoneID, subscriptionID: UUID().uuidString)
    }

    public init(zoneID: CKRecordZone.ID, subscriptionID: CKSubscription.ID) {
        self.zoneID = zoneID
        super.init(subscriptionID: subscriptionID, type: .recordZone)
    }
}

/// Notifies about every change in a private or shared database.
open class CKDatabaseSubscription: CKSubscription, @unchecked Sendable {
    open var recordType: CKRecord.RecordType?

    public convenience init() {
        self.init(subscriptionID: UUID().uuidString)
    }

    public init(subscriptionID: CKSubscription.ID) {
        super.init(subscriptionID: subscriptionID, type: .database)
    }
}
