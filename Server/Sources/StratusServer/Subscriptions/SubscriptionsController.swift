import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// `subscriptions/list`, `subscriptions/lookup` and `subscriptions/modify` (`docs/protocol.md#subscriptions`).
///
/// Subscriptions belong to the signed-in user, per database: two users may both have a subscription
/// named `messages` in the public database.
struct SubscriptionsController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.get("subscriptions/list", use: list)
        group.post("subscriptions/list", use: list)
        group.post("subscriptions/lookup", use: lookup)
        group.post("subscriptions/modify", use: modify)
    }

    @Sendable func list(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let user = try call.requireUser()
        let saved = try await subscriptions(of: user, call: call)
        return try call.respond(encoding: SubscriptionsResponse(subscriptions: try saved.map { .subscription(try Self.input(of: $0)) }))
    }

    @Sendable func lookup(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let user = try call.requireUser()
        let body = try await call.decode(LookupSubscriptionsRequest.self, from: request)
        guard body.subscriptions.count <= RecordLimits.maximumOperations else {
            throw APIError.badRequest("a lookup may name at most \(RecordLimits.maximumOperations) subscriptions")
        }
        let saved = Dictionary(try await subscriptions(of: user, call: call).map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        return try call.respond(encoding: SubscriptionsResponse(subscriptions: try body.subscriptions.map { item in
            guard let subscription = saved[item.subscriptionID] else {
                return Self.failure(item.subscriptionID, APIError(.notFound, "subscription \(item.subscriptionID) does not exist"))
            }
            return .subscription(try Self.input(of: subscription))
        }))
    }

    @Sendable func modify(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let user = try call.requireUser()
        let body = try await call.decode(ModifySubscriptionsRequest.self, from: request)
        guard body.operations.count <= RecordLimits.maximumOperations else {
            throw APIError.badRequest("a request may have at most \(RecordLimits.maximumOperations) operations")
        }
        let database = try subscriptionDatabase(call)
        let schema = try await server.store.schema(containerID: call.authentication.container.id, environment: call.authentication.environment)
        var outcomes: [SubscriptionResultEntry] = []
        for (index, operation) in body.operations.enumerated() {
            let input: SubscriptionInput
            do {
                input = try JSONValueDecoder().decode(SubscriptionInput.self, from: operation.subscription)
            } catch {
                outcomes.append(Self.failure("", APIError.badRequest("operations[\(index)].subscription is not a subscription: \(error)")))
                continue
            }
            let id = input.subscriptionID ?? UUID().uuidString
            do {
                switch operation.operationType {
                case .delete:
                    guard input.subscriptionID != nil else { throw APIError.badRequest("operations[\(index)]: a delete needs the subscriptionID") }
                    guard try await server.store.deleteSubscription(id: id, owner: user, in: database) else {
                        throw APIError(.notFound, "subscription \(id) does not exist")
                    }
                    outcomes.append(.deleted(subscriptionID: id))
                case .create, .update:
                    let normalized = try await SubscriptionRules.normalize(
                        input, id: id, environment: call.authentication.environment, scope: call.scope, schema: schema
                    ) { zoneID in try await Self.existingZone(zoneID, call: call, store: server.store) }
                    let body = String(decoding: try JSONEncoder().encode(normalized), as: UTF8.self)
                    let stored = StoredSubscription(id: id, database: database, owner: user, body: body, createdAt: ServerClock.now())
                    try await server.store.saveSubscription(stored, mustExist: operation.operationType == .update)
                    outcomes.append(.subscription(normalized))
                }
            } catch {
                outcomes.append(Self.failure(id, APIError(translating: error)))
            }
        }
        return try call.respond(encoding: SubscriptionsResponse(subscriptions: outcomes))
    }

    /// The database whose subscriptions a call reads and writes.
    private func subscriptionDatabase(_ call: DatabaseCall) throws -> DatabaseRef {
        guard call.scope != .shared else {
            let container = call.authentication.container.id
            return DatabaseRef(containerID: container, environment: call.authentication.environment, scope: .shared, ownerRecordName: try call.requireUser())
        }
        return try call.database()
    }

    private func subscriptions(of user: String, call: DatabaseCall) async throws -> [StoredSubscription] {
        try await server.store.subscriptions(of: user, in: try subscriptionDatabase(call))
    }

    /// `{subscriptionID, serverErrorCode, reason}`.
    static func failure(_ id: String, _ error: APIError) -> SubscriptionResultEntry {
        let reason = error.code == .internalError ? "the server failed to process the subscription" : error.reason
        return .failure(SubscriptionErrorEntry(subscriptionID: id, serverErrorCode: error.code.rawValue, reason: reason))
    }

    /// A kept subscription as its owner sent it, normalized.
    static func input(of stored: StoredSubscription) throws -> SubscriptionInput {
        do {
            return try JSONDecoder().decode(SubscriptionInput.self, from: Data(stored.body.utf8))
        } catch {
            throw APIError.internalError(error)
        }
    }

    /// The zone `zoneID` names for the caller, as a subscription keeps it.
    /// - Throws: `ZONE_NOT_FOUND` when there is none.
    private static func existingZone(_ zoneID: ZoneID, call: DatabaseCall, store: any Store) async throws -> ZoneID {
        guard call.scope != .shared else {
            return try await call.target(zoneID, store: store).zone.wireZoneID
        }
        let zone = try call.zone(zoneID)
        if !zone.isDefault, try await store.lookupZones([zone.zoneName], in: zone.database).isEmpty {
            throw APIError(.zoneNotFound, "zone \(zone.zoneName) does not exist")
        }
        return zone.wireZoneID
    }
}
