import Foundation
import StratusModel
import StratusStore

/// What a webhook endpoint is sent: one JSON body per event, `{type, timestamp, data}`, with record events holding
/// the record as the API writes it.
package enum WebhookEvents {
    /// The record events's types, by change.
    package static func type(of kind: RecordEvent.Kind) -> String {
        switch kind {
        case .created: "record.created"
        case .updated: "record.updated"
        case .deleted: "record.deleted"
        case .participantLeft: "share.left"
        }
    }

    /// Every event type an endpoint may subscribe to.
    package static let all = ["record.created", "record.updated", "record.deleted", "share.accepted", "share.left", "account.created", "account.deleted", "job.run"]

    /// The deliveries `events` cause for `endpoints`, in the order of the events.
    package static func deliveries(for events: [RecordEvent], endpoints: [WebhookEndpoint], now: Int64) -> [PendingWebhookDelivery] {
        guard !endpoints.isEmpty else { return [] }
        var deliveries: [PendingWebhookDelivery] = []
        for event in events {
            let database = event.zone.database
            let listening = endpoints.filter { endpoint in
                endpoint.containerID == database.containerID && endpoint.environment == database.environment && Self.wants(endpoint, event)
            }
            guard !listening.isEmpty else { continue }
            let type = type(of: event.kind)
            let body = event.kind == .participantLeft ? shareLeftBody(event, now: now) : recordBody(event, type: type, now: now)
            let eventID = "evt_" + Tokens.randomHex(bytes: 12)
            let key = "\(database.scope.rawValue)|\(database.ownerRecordName)|\(event.zone.zoneName)"
            for endpoint in listening {
                deliveries.append(PendingWebhookDelivery(
                    endpointID: endpoint.id, containerID: database.containerID, environment: database.environment, orderingKey: key,
                    eventID: eventID, eventType: type, body: body
                ))
            }
        }
        return deliveries
    }

    /// Whether an endpoint's filters let a record event through.
    package static func wants(_ endpoint: WebhookEndpoint, _ event: RecordEvent) -> Bool {
        // A share event is filtered by its type only, as when it is queued by the change itself.
        if event.kind == .participantLeft { return endpoint.eventTypes.isEmpty || endpoint.eventTypes.contains("share.left") }
        return (endpoint.eventTypes.isEmpty || endpoint.eventTypes.contains(type(of: event.kind)))
            && (endpoint.databases.isEmpty || endpoint.databases.contains(event.zone.database.scope.rawValue))
            && (endpoint.zoneNames.isEmpty || endpoint.zoneNames.contains(event.zone.zoneName))
            && (endpoint.recordTypes.isEmpty || endpoint.recordTypes.contains(event.record.recordType))
    }

    /// A participant's leaving, in the shape of the share events the store queues itself.
    package static func shareLeftBody(_ event: RecordEvent, now: Int64) -> String {
        let data = WebhookDelivery.shareEventData(zone: event.zone, shareRecordName: event.record.recordName, user: event.record.modified.userRecordName)
        return WebhookDelivery.eventBody(type: "share.left", data: data, now: now)
    }

    package static func recordBody(_ event: RecordEvent, type: String, now: Int64) -> String {
        let database = event.zone.database
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("type")
        writer.string(type)
        writer.key("timestamp")
        writer.string(WebhookDelivery.timestamp(now))
        writer.key("data")
        writer.beginObject()
        writer.key("containerID")
        writer.string(database.containerID)
        writer.key("environment")
        writer.string(database.environment.rawValue)
        writer.key("database")
        writer.string(database.scope.rawValue)
        writer.key("zoneID")
        writer.beginObject()
        writer.key("zoneName")
        writer.string(event.zone.zoneName)
        writer.key("ownerRecordName")
        writer.string(database.ownerRecordName)
        writer.endObject()
        writer.key("record")
        event.record.write(to: &writer, rendering: RecordRendering())
        writer.endObject()
        writer.endObject()
        return writer.text
    }

}
