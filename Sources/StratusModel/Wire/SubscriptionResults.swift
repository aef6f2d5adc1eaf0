/// A subscription's error in a per-item answer: `{subscriptionID, serverErrorCode, reason}`.
public struct SubscriptionErrorEntry: Sendable, Hashable, Codable {
    public var subscriptionID: String
    public var serverErrorCode: String
    public var reason: String

    public init(subscriptionID: String, serverErrorCode: String, reason: String) {
        self.subscriptionID = subscriptionID
        self.serverErrorCode = serverErrorCode
        self.reason = reason
    }
}

/// One item of a `subscriptions/*` answer: the subscription as saved, a deletion (`{subscriptionID, deleted:
/// true}`), or the item's error (it has a `serverErrorCode`).
public enum SubscriptionResultEntry: Sendable, Hashable, Codable {
    case subscription(SubscriptionInput)
    case deleted(subscriptionID: String)
    case failure(SubscriptionErrorEntry)

    private enum Key: String, CodingKey {
        case serverErrorCode, deleted, subscriptionID
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.serverErrorCode) {
            self = .failure(try SubscriptionErrorEntry(from: decoder))
        } else if try container.decodeIfPresent(Bool.self, forKey: .deleted) == true {
            self = .deleted(subscriptionID: try container.decode(String.self, forKey: .subscriptionID))
        } else {
            self = .subscription(try SubscriptionInput(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .subscription(let subscription):
            try subscription.encode(to: encoder)
        case .deleted(let id):
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(true, forKey: .deleted)
            try container.encode(id, forKey: .subscriptionID)
        case .failure(let failure):
            try failure.encode(to: encoder)
        }
    }
}

/// The answer of `subscriptions/list`, `subscriptions/lookup` and `subscriptions/modify`: `{subscriptions}`.
public struct SubscriptionsResponse: Sendable, Hashable, Codable {
    public var subscriptions: [SubscriptionResultEntry]

    public init(subscriptions: [SubscriptionResultEntry]) {
        self.subscriptions = subscriptions
    }
}
