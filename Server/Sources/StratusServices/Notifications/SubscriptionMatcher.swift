import Foundation
import StratusModel
import StratusStore

/// Decides which subscriptions committed record changes fire, and renders their notifications.
package struct SubscriptionMatcher {
    package let index: SubscriptionIndex

    /// What `events` cause, each judged with its container environment's schema.
    package func outcome(of events: [RecordEvent], schema: (ZoneRef) -> Schema) -> EventOutcome {
        var outcome = EventOutcome()
        var fired = Set<SubscriptionIndex.EntryKey>()
        for event in events {
            let schema = schema(event.zone)
            // One id per change, shared by the notifications of every subscription it fires.
            var notificationID: String?
            var candidates = index.candidates(zone: event.zone, record: event.record, fields: event.fields)
            for reader in event.sharedReaders {
                let shared = DatabaseRef(
                    containerID: event.zone.database.containerID, environment: event.zone.database.environment, scope: .shared,
                    ownerRecordName: reader
                )
                candidates += index.candidates(zone: event.zone, record: event.record, fields: event.fields, in: shared)
            }
            for entry in candidates where !fired.contains(entry.key) {
                guard Self.fires(entry, on: event, schema: schema) else { continue }
                if notificationID == nil { notificationID = UUID().uuidString.lowercased() }
                outcome.notifications.append(PendingNotification(
                    containerID: event.zone.database.containerID, environment: event.zone.database.environment,
                    recipient: entry.stored.owner, subscriptionID: entry.stored.id,
                    payload: NotificationRendering.render(entry, event: event, notificationID: notificationID!)
                ))
                if entry.input.firesOnce == true {
                    fired.insert(entry.key)
                    outcome.firedOnce.append((entry.stored.database, entry.stored.owner, entry.stored.id))
                }
            }
        }
        return outcome
    }

    /// Whether a candidate subscription fires: its trigger, zone, filters, and its owner's right to read the record.
    package static func fires(_ entry: SubscriptionIndex.Entry, on event: RecordEvent, schema: Schema) -> Bool {
        if event.kind == .participantLeft { return false }
        if let zone = entry.input.zoneID, entry.input.subscriptionType == .zone || entry.input.zoneWide == false {
            guard zone.zoneName == event.zone.zoneName else { return false }
            // A shared database holds zones of several owners: the subscription names one.
            if entry.stored.database.scope == .shared && zone.ownerRecordName != event.zone.database.ownerRecordName { return false }
        }
        guard entry.input.subscriptionType == .query else { return true }
        let trigger: SubscriptionInput.Trigger = switch event.kind {
        case .created: .create
        case .updated: .update
        case .deleted, .participantLeft: .delete
        }
        guard entry.triggers.contains(trigger), let input = entry.input.query else { return false }
        if event.zone.database.scope == .public, let type = schema.recordTypes[event.record.recordType] {
            let caller = Caller(userRecordName: entry.stored.owner, roles: entry.roles)
            guard AccessPolicy.allows(.read, on: type, caller: caller, creator: event.record.created.userRecordName) else { return false }
        }
        guard let query = try? QueryTyper.typedQuery(input, schema: schema, environment: event.zone.database.environment) else { return false }
        return RecordMatcher(record: event.record, fields: event.fields).matches(query)
    }
}
