import Foundation
internal import StratusModel

/// What the server watches for a user, and notifies them of (`CKSubscription`).
///
/// ```swift
/// let newMessages = Subscription(
///     id: "general",
///     query: Query(recordType: "Message", filter: .field("channel") == "general"),
///     firesOn: [.create],
///     notificationInfo: .init(alertBody: "New message", desiredKeys: ["text"])
/// )
/// try await container.publicCloudDatabase.save(newMessages)
/// ```
public struct Subscription: Sendable, Hashable, Codable {
    /// Which changes fire a query subscription.
    public enum Trigger: String, Sendable, Hashable, CaseIterable, Codable {
        case create, update, delete
    }

    /// What a subscription watches.
    public enum Kind: Sendable, Hashable, Codable {
        /// Records matching a query, in one zone or (`zoneID == nil`) the whole database.
        case query(Query, zoneID: Zone.ID?, firesOn: Set<Trigger>, firesOnce: Bool)
        /// Every change in a custom zone.
        case zone(Zone.ID)
        /// Every change in the (private or shared) database.
        case database
    }

    /// What a notification carries (`CKSubscription.NotificationInfo`).
    public struct NotificationInfo: Sendable, Hashable, Codable {
        public var alertBody: String?
        public var title: String?
        public var soundName: String?
        /// Fields copied into the notification (`ck.qry.af`).
        public var desiredKeys: [String]?
        public var shouldBadge: Bool
        public var shouldSendContentAvailable: Bool

        public init(
            alertBody: String? = nil, title: String? = nil, soundName: String? = nil, desiredKeys: [String]? = nil,
            shouldBadge: Bool = false, shouldSendContentAvailable: Bool = false
        ) {
            self.alertBody = alertBody
            self.title = title
            self.soundName = soundName
            self.desiredKeys = desiredKeys
            self.shouldBadge = shouldBadge
            self.shouldSendContentAvailable = shouldSendContentAvailable
        }
    }

    public var subscriptionID: String
    public var kind: Kind
    public var notificationInfo: NotificationInfo?

    public init(id: String, kind: Kind, notificationInfo: NotificationInfo? = nil) {
        self.subscriptionID = id
        self.kind = kind
        self.notificationInfo = notificationInfo
    }

    /// A query subscription.
    public init(
        id: String, query: Query, zoneID: Zone.ID? = nil, firesOn: Set<Trigger> = Set(Trigger.allCases), firesOnce: Bool = false,
        notificationInfo: NotificationInfo? = nil
    ) {
        self.init(id: id, kind: .query(query, zoneID: zoneID, firesOn: firesOn, firesOnce: firesOnce), notificationInfo: notificationInfo)
    }

    /// The subscription as sent, and as the server answers it.
    var model: SubscriptionInput {
        var input = SubscriptionInput(subscriptionID: subscriptionID)
        switch kind {
        case .query(let query, let zoneID, let firesOn, let firesOnce):
            input.subscriptionType = .query
            input.query = query.model
            input.firesOn = Trigger.allCases.filter(firesOn.contains).compactMap { SubscriptionInput.Trigger(rawValue: $0.rawValue) }
            input.firesOnce = firesOnce
            input.zoneID = zoneID?.model
            input.zoneWide = zoneID == nil
        case .zone(let zoneID):
            input.subscriptionType = .zone
            input.zoneID = zoneID.model
        case .database:
            input.subscriptionType = .database
        }
        if let info = notificationInfo {
            var wire = StratusModel.NotificationInfo()
            wire.alertBody = info.alertBody
            wire.soundName = info.soundName
            wire.additionalFields = info.desiredKeys
            wire.shouldBadge = info.shouldBadge
            wire.shouldSendContentAvailable = info.shouldSendContentAvailable
            wire.title = info.title
            input.notificationInfo = wire
        }
        return input
    }

    init?(model: SubscriptionInput, currentUser: String?) {
        guard let id = model.subscriptionID else { return nil }
        let zoneID = model.zoneID.map { Zone.ID(model: $0, currentUser: currentUser) }
        switch model.subscriptionType {
        case .query?:
            guard let query = model.query.map({ Query(model: $0, currentUser: currentUser) }) else { return nil }
            let triggers = Set((model.firesOn ?? []).compactMap { Trigger(rawValue: $0.rawValue) })
            kind = .query(query, zoneID: model.zoneWide == false ? zoneID : nil, firesOn: triggers, firesOnce: model.firesOnce ?? false)
        case .zone?:
            kind = .zone(zoneID ?? .default)
        case .database?:
            kind = .database
        case nil:
            return nil
        }
        subscriptionID = id
        if let info = model.notificationInfo {
            notificationInfo = NotificationInfo(
                alertBody: info.alertBody, title: info.title, soundName: info.soundName, desiredKeys: info.additionalFields ?? info.desiredKeys,
                shouldBadge: info.shouldBadge ?? false, shouldSendContentAvailable: info.shouldSendContentAvailable ?? false
            )
        }
    }
}

extension Query {
    /// Reads a saved subscription's query back.
    init(model: QueryInput, currentUser: String?) {
        var filter = Filter.all
        for entry in model.filterBy ?? [] {
            guard let input = entry.fieldValue, let value = FieldValue(input: input, currentUser: currentUser) else { continue }
            let field = entry.systemFieldName.map { Filter.Field(name: $0, isSystem: true) } ?? Filter.Field(name: entry.fieldName ?? "", isSystem: false)
            filter = filter && Filter(conditions: [Filter.Condition(comparator: entry.comparator, field: field, value: value, distance: entry.distance)])
        }
        let sort = (model.sortBy ?? []).map { entry in
            let field = entry.systemFieldName.map { Filter.Field(name: $0, isSystem: true) } ?? Filter.Field(name: entry.fieldName ?? "", isSystem: false)
            return Query.Sort(field: field, ascending: entry.ascending ?? true)
        }
        self.init(recordType: model.recordType, filter: filter, sort: sort)
    }
}

/// Saving, listing and deleting subscriptions.
extension Database {
    @discardableResult
    public func save(_ subscription: Subscription) async throws -> Subscription {
        let operation = ModifySubscriptionsRequest.Operation(operationType: .create, subscription: try JSONValue(encoding: subscription.model))
        let answer = try await container.post(databaseScope, "subscriptions/modify", ModifySubscriptionsRequest(operations: [operation]), answer: SubscriptionsResponse.self)
        return try self.subscription(from: answer.subscriptions.first)
    }

    /// The user's subscriptions in this database.
    public func allSubscriptions() async throws -> [Subscription] {
        let answer = try await container.post(databaseScope, "subscriptions/list", EmptyRequest(), answer: SubscriptionsResponse.self)
        return try answer.subscriptions.map { try subscription(from: $0) }
    }

    /// One subscription.
    /// - Throws: ``StratusError`` `unknownItem`.
    public func subscription(for id: String) async throws -> Subscription {
        let request = LookupSubscriptionsRequest(subscriptions: [.init(subscriptionID: id)])
        let answer = try await container.post(databaseScope, "subscriptions/lookup", request, answer: SubscriptionsResponse.self)
        return try subscription(from: answer.subscriptions.first)
    }

    public func deleteSubscription(withID id: String) async throws {
        let operation = ModifySubscriptionsRequest.Operation(
            operationType: .delete, subscription: try JSONValue(encoding: SubscriptionInput(subscriptionID: id))
        )
        let answer = try await container.post(databaseScope, "subscriptions/modify", ModifySubscriptionsRequest(operations: [operation]), answer: SubscriptionsResponse.self)
        if case .failure(let failure)? = answer.subscriptions.first {
            throw Container.error(serverErrorCode: failure.serverErrorCode, reason: failure.reason)
        }
    }

    private func subscription(from entry: SubscriptionResultEntry?) throws -> Subscription {
        switch entry {
        case .subscription(let model)?:
            guard let subscription = Subscription(model: model, currentUser: container.currentUserRecordName) else {
                throw StratusError(.internalError, "the server answered a subscription StratusKit cannot read")
            }
            return subscription
        case .failure(let failure)?:
            throw Container.error(serverErrorCode: failure.serverErrorCode, reason: failure.reason)
        case .deleted?, nil:
            throw StratusError(.internalError, "the server answered no subscription")
        }
    }
}

