/// A subscription as clients send it (`docs/protocol.md#subscriptions`).
public struct SubscriptionInput: Sendable, Hashable, Codable {
    /// What a subscription watches.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Records of one type that match filters.
        case query
        /// Any change in one custom zone of a private database.
        case zone
        /// Any change in the caller's private or shared database.
        case database
    }

    /// A change that fires a query subscription.
    public enum Trigger: String, Sendable, Hashable, Codable, CaseIterable {
        case create, update, delete
    }

    public var subscriptionID: String?
    /// Required to create or update; a delete needs only the ID.
    public var subscriptionType: Kind?
    public var query: QueryInput?
    public var zoneID: ZoneID?
    public var firesOn: [Trigger]?
    public var firesOnce: Bool?
    /// Query subscriptions: watch every zone of the database, not only `zoneID` (default `true`).
    public var zoneWide: Bool?
    public var notificationInfo: NotificationInfo?

    public init(
        subscriptionID: String? = nil, subscriptionType: Kind? = nil, query: QueryInput? = nil, zoneID: ZoneID? = nil,
        firesOn: [Trigger]? = nil, firesOnce: Bool? = nil, zoneWide: Bool? = nil, notificationInfo: NotificationInfo? = nil
    ) {
        self.subscriptionID = subscriptionID
        self.subscriptionType = subscriptionType
        self.query = query
        self.zoneID = zoneID
        self.firesOn = firesOn
        self.firesOnce = firesOnce
        self.zoneWide = zoneWide
        self.notificationInfo = notificationInfo
    }
}

/// What a notification shows and carries: rendered into the APNs payload's `aps` dictionary (`docs/protocol.md#notification-payloads`).
public struct NotificationInfo: Sendable, Hashable, Codable {
    public var alertBody: String?
    /// The alert's title.
    public var title: String?
    public var alertLocalizationKey: String?
    /// Field names whose values fill the localized alert's arguments.
    public var alertLocalizationArgs: [String]?
    public var alertActionLocalizationKey: String?
    public var alertLaunchImage: String?
    public var soundName: String?
    public var shouldBadge: Bool?
    public var shouldSendContentAvailable: Bool?
    public var category: String?
    /// Fields whose values the notification carries in `ck.qry.af` (CloudKit JS's name).
    public var additionalFields: [String]?
    /// The same, by CloudKit's native name.
    public var desiredKeys: [String]?

    public init() {}

    /// The fields a notification carries: `additionalFields` and `desiredKeys` together.
    public var carriedFields: [String] {
        var seen = Set<String>()
        return ((additionalFields ?? []) + (desiredKeys ?? [])).filter { seen.insert($0).inserted }
    }
}

/// The `subscriptions/modify` request body. Subscriptions stay JSON here so they can be kept as sent.
public struct ModifySubscriptionsRequest: Sendable, Hashable, Codable {
    public enum OperationType: String, Sendable, Hashable, Codable {
        case create, update, delete
    }
    public struct Operation: Sendable, Hashable, Codable {
        public var operationType: OperationType
        public var subscription: JSONValue

        public init(operationType: OperationType, subscription: JSONValue) {
            self.operationType = operationType
            self.subscription = subscription
        }
    }
    public var operations: [Operation]

    public init(operations: [Operation]) {
        self.operations = operations
    }
}

/// The `subscriptions/lookup` request body.
public struct LookupSubscriptionsRequest: Sendable, Hashable, Codable {
    /// One subscription asked for: `{"subscriptionID": "…"}`, or the bare ID as a string (as some clients send it).
    public struct Item: Sendable, Hashable, Codable {
        public var subscriptionID: String

        public init(subscriptionID: String) {
            self.subscriptionID = subscriptionID
        }

        public init(from decoder: any Decoder) throws {
            if let single = try? decoder.singleValueContainer(), let id = try? single.decode(String.self) {
                subscriptionID = id
                return
            }
            let container = try decoder.container(keyedBy: CodingKeys.self)
            subscriptionID = try container.decode(String.self, forKey: .subscriptionID)
        }
    }
    public var subscriptions: [Item]

    public init(subscriptions: [Item]) {
        self.subscriptions = subscriptions
    }
}
