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
public struct Subscription: Sendable, Hashable {
    /// Which changes fire a query subscription.
    public enum Trigger: String, Sendable, Hashable, CaseIterable {
        case create, update, delete
    }

    /// What a subscription watches.
    public enum Kind: Sendable, Hashable {
        /// Records matching a query, in one zone or (`zoneID == nil`) the whole database.
        case query(Query, zoneID: Zone.ID?, firesOn: Set<Trigger>, firesOnce: Bool)
        /// Every change in a custom zone.
        case zone(Zone.ID)
        /// Every change in the (private or shared) database.
        case database
    }

    /// What a notification carries (`CKSubscription.NotificationInfo`).
    public struct NotificationInfo: Sendable, Hashable {
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

    var wire: JSONValue {
        var object: [String: JSONValue] = ["subscriptionID": .string(subscriptionID)]
        switch kind {
        case .query(let query, let zoneID, let firesOn, let firesOnce):
            object["subscriptionType"] = .string("query")
            object["query"] = query.wire
            object["firesOn"] = .array(Trigger.allCases.filter(firesOn.contains).map { .string($0.rawValue) })
            object["firesOnce"] = .bool(firesOnce)
            if let zoneID {
                object["zoneID"] = zoneID.wire
                object["zoneWide"] = .bool(false)
            } else {
                object["zoneWide"] = .bool(true)
            }
        case .zone(let zoneID):
            object["subscriptionType"] = .string("zone")
            object["zoneID"] = zoneID.wire
        case .database:
            object["subscriptionType"] = .string("database")
        }
        if let info = notificationInfo {
            var wire: [String: JSONValue] = [
                "shouldBadge": .bool(info.shouldBadge), "shouldSendContentAvailable": .bool(info.shouldSendContentAvailable),
            ]
            if let body = info.alertBody { wire["alertBody"] = .string(body) }
            if let title = info.title { wire["title"] = .string(title) }
            if let sound = info.soundName { wire["soundName"] = .string(sound) }
            if let keys = info.desiredKeys { wire["additionalFields"] = .array(keys.map(JSONValue.string)) }
            object["notificationInfo"] = .object(wire)
        }
        return .object(object)
    }

    init?(wire object: [String: JSONValue], currentUser: String?) {
        guard let id = object["subscriptionID"]?.stringValue else { return nil }
        let zoneID = object["zoneID"].map { Zone.ID(wire: $0, currentUser: currentUser) }
        switch object["subscriptionType"]?.stringValue {
        case "query":
            guard let queryObject = object["query"]?.objectValue, let query = Query(wire: queryObject, currentUser: currentUser) else { return nil }
            let triggers = Set((object["firesOn"]?.arrayValue ?? []).compactMap { $0.stringValue.flatMap(Trigger.init(rawValue:)) })
            kind = .query(query, zoneID: object["zoneWide"]?.boolValue == false ? zoneID : nil, firesOn: triggers, firesOnce: object["firesOnce"]?.boolValue ?? false)
        case "zone":
            kind = .zone(zoneID ?? .default)
        case "database":
            kind = .database
        default:
            return nil
        }
        subscriptionID = id
        if let info = object["notificationInfo"]?.objectValue {
            notificationInfo = NotificationInfo(
                alertBody: info["alertBody"]?.stringValue, title: info["title"]?.stringValue, soundName: info["soundName"]?.stringValue,
                desiredKeys: info["additionalFields"]?.arrayValue?.compactMap(\.stringValue),
                shouldBadge: info["shouldBadge"]?.boolValue ?? false, shouldSendContentAvailable: info["shouldSendContentAvailable"]?.boolValue ?? false
            )
        }
    }
}

extension Query {
    /// Reads a saved subscription's query back.
    init?(wire object: [String: JSONValue], currentUser: String?) {
        guard let type = object["recordType"]?.stringValue else { return nil }
        var filter = Filter.all
        for item in object["filterBy"]?.arrayValue ?? [] {
            guard let entry = item.objectValue, let comparator = entry["comparator"]?.stringValue,
                let valueEntry = entry["fieldValue"]?.objectValue, let raw = valueEntry["value"],
                let value = try? FieldValue(wire: raw, type: valueEntry["type"]?.stringValue, currentUser: currentUser)
            else { continue }
            let field = entry["systemFieldName"]?.stringValue.map { Filter.Field(name: $0, isSystem: true) }
                ?? Filter.Field(name: entry["fieldName"]?.stringValue ?? "", isSystem: false)
            filter = filter && Filter(conditions: [Filter.Condition(comparator: comparator, field: field, value: value, distance: entry["distance"].flatMap(\.doubleValue))])
        }
        var sort: [Query.Sort] = []
        for item in object["sortBy"]?.arrayValue ?? [] {
            guard let entry = item.objectValue else { continue }
            let field = entry["systemFieldName"]?.stringValue.map { Filter.Field(name: $0, isSystem: true) }
                ?? Filter.Field(name: entry["fieldName"]?.stringValue ?? "", isSystem: false)
            sort.append(Query.Sort(field: field, ascending: entry["ascending"]?.boolValue ?? true))
        }
        self.init(recordType: type, filter: filter, sort: sort)
    }
}

extension JSONValue {
    var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }
}

/// Saving, listing and deleting subscriptions.
extension Database {
    @discardableResult
    public func save(_ subscription: Subscription) async throws -> Subscription {
        let answer = try await container.post(databaseScope, "subscriptions/modify", .object([
            "operations": .array([.object(["operationType": .string("create"), "subscription": subscription.wire])]),
        ]))
        return try self.subscription(fromItem: answer["subscriptions"]?.arrayValue?.first)
    }

    /// The user's subscriptions in this database.
    public func allSubscriptions() async throws -> [Subscription] {
        let answer = try await container.post(databaseScope, "subscriptions/list", .object([:]))
        return try (answer["subscriptions"]?.arrayValue ?? []).map { try subscription(fromItem: $0) }
    }

    /// One subscription.
    /// - Throws: ``StratusError`` `unknownItem`.
    public func subscription(for id: String) async throws -> Subscription {
        let answer = try await container.post(databaseScope, "subscriptions/lookup", .object([
            "subscriptions": .array([.object(["subscriptionID": .string(id)])]),
        ]))
        return try subscription(fromItem: answer["subscriptions"]?.arrayValue?.first)
    }

    public func deleteSubscription(withID id: String) async throws {
        let answer = try await container.post(databaseScope, "subscriptions/modify", .object([
            "operations": .array([.object(["operationType": .string("delete"), "subscription": .object(["subscriptionID": .string(id)])])]),
        ]))
        if let item = answer["subscriptions"]?.arrayValue?.first?.objectValue, item["serverErrorCode"] != nil {
            throw Container.error(from: item, status: 200)
        }
    }

    private func subscription(fromItem item: JSONValue?) throws -> Subscription {
        guard let object = item?.objectValue else { throw StratusError(.internalError, "the server answered no subscription") }
        if object["serverErrorCode"] != nil { throw Container.error(from: object, status: 200) }
        guard let subscription = Subscription(wire: object, currentUser: container.currentUserRecordName) else {
            throw StratusError(.internalError, "the server answered a subscription StratusKit cannot read")
        }
        return subscription
    }
}
