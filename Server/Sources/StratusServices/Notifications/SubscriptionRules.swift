import Foundation
import StratusModel
import StratusStore

/// Checks a subscription against its database and schema, and writes it as kept: the ID and defaults
/// filled in, keys sorted.
package enum SubscriptionRules {
    /// The subscription `input` as kept, for a database of `scope` in `environment`; `existingZone` answers the
    /// zone a zone ID names for the caller, or throws when there is none.
    /// - Throws: ``ServiceError`` (`invalidArgument`, `zoneNotFound`) naming what is wrong.
    package static func normalize(
        _ input: SubscriptionInput, id: String, environment: Environment, scope: DatabaseScope, schema: Schema,
        existingZone: (ZoneID) async throws -> ZoneID
    ) async throws -> SubscriptionInput {
        guard RecordNames.isValidName(id) else { throw ServiceError.invalidArgument("subscriptionID '\(id)' is not valid") }
        guard let kind = input.subscriptionType else {
            throw ServiceError.invalidArgument("subscription \(id) needs a subscriptionType: query, zone or database")
        }
        var normalized = SubscriptionInput(subscriptionID: id, subscriptionType: kind, notificationInfo: input.notificationInfo)
        switch kind {
        case .query:
            guard let query = input.query else { throw ServiceError.invalidArgument("query subscription \(id) needs a query") }
            // A type that does not exist yet (development) cannot check its filters' fields, but their comparators can be.
            if let unknown = query.filterBy?.first(where: { Comparator(rawValue: $0.comparator) == nil }) {
                throw ServiceError.invalidArgument("unknown comparator '\(unknown.comparator)'")
            }
            _ = try QueryTyper.typedQuery(query, schema: schema, environment: environment)
            let triggers = input.firesOn ?? SubscriptionInput.Trigger.allCases
            guard !triggers.isEmpty else { throw ServiceError.invalidArgument("query subscription \(id) needs firesOn: create, update or delete") }
            normalized.query = query
            normalized.firesOn = SubscriptionInput.Trigger.allCases.filter(triggers.contains)
            normalized.firesOnce = input.firesOnce ?? false
            let zoneWide = input.zoneWide ?? (input.zoneID == nil)
            normalized.zoneWide = zoneWide
            if let zoneID = input.zoneID, !zoneWide {
                normalized.zoneID = try await existingZone(zoneID)
            }
        case .zone:
            guard scope != .public else { throw ServiceError.invalidArgument("zone subscriptions watch custom zones of a private or shared database") }
            guard let zoneID = input.zoneID, zoneID.zoneName != ZoneID.defaultZoneName else {
                throw ServiceError.invalidArgument("zone subscription \(id) needs the zoneID of a custom zone")
            }
            normalized.zoneID = try await existingZone(zoneID)
        case .database:
            guard scope != .public else { throw ServiceError.invalidArgument("database subscriptions watch a private or shared database") }
        }
        return normalized
    }
}
