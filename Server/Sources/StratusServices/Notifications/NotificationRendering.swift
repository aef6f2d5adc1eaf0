import StratusModel
import StratusStore

/// Renders a notification as CloudKit's APNs-style payload (`docs/protocol.md#notification-payloads`, StratusModel's
/// ``NotificationPayload``): `aps` from the subscription's `notificationInfo`, and `ck` saying which subscription
/// fired on which record.
package enum NotificationRendering {
    package static func render(_ entry: SubscriptionIndex.Entry, event: RecordEvent, notificationID: String) -> String {
        let info = entry.input.notificationInfo ?? NotificationInfo()
        let zoneID = ZoneID(
            zoneName: event.zone.zoneName,
            ownerRecordName: event.zone.database.scope == .public ? NotificationPayload.publicZoneOwner : event.zone.database.ownerRecordName
        )
        let subject: NotificationPayload.Subject = switch entry.input.subscriptionType ?? .query {
        case .query:
            .query(
                recordName: event.record.recordName, zoneID: zoneID, reason: NotificationPayload.QueryReason(rawValue: Int64(event.kind.rawValue)) ?? .recordUpdated,
                // Stored asset identities stay on the server.
                fields: event.fields.filter { info.carriedFields.contains($0.key) }.mapValues { value in
                    value.mappingAssets { Asset(fileChecksum: $0.fileChecksum, size: $0.size) }
                }
            )
        case .zone: .zone(zoneID)
        case .database: .database
        }
        // Zone and database subscriptions are how a sync engine hears of changes: unless they say otherwise, their
        // notifications wake a backgrounded app (a silent push), as CKSyncEngine's subscriptions ask.
        let wakesApp = info.shouldSendContentAvailable ?? (entry.input.subscriptionType == .zone || entry.input.subscriptionType == .database)
        return NotificationPayload(
            aps: aps(info, fields: event.fields, wakesApp: wakesApp), containerIdentifier: event.zone.database.containerID, notificationID: notificationID,
            userRecordName: entry.stored.owner, subscriptionID: entry.stored.id, databaseScope: entry.stored.database.scope, subject: subject
        ).jsonText
    }

    /// `aps` as the subscription's `notificationInfo` asks; `loc-args` take the values of the fields it names;
    /// `content-available` when `wakesApp`.
    private static func aps(_ info: NotificationInfo, fields: [String: FieldValue], wakesApp: Bool) -> NotificationPayload.APS {
        let alert = NotificationPayload.Alert(
            body: info.alertBody, title: info.title, localizationKey: info.alertLocalizationKey,
            localizationArgs: info.alertLocalizationArgs.map { names in names.map { text(of: fields[$0]) } },
            actionLocalizationKey: info.alertActionLocalizationKey, launchImage: info.alertLaunchImage
        )
        return NotificationPayload.APS(
            alert: alert.isEmpty ? nil : alert, sound: info.soundName, badge: info.shouldBadge == true ? 1 : nil,
            contentAvailable: wakesApp, category: info.category
        )
    }

    /// A field's value as alert text: strings as they are, other values as their JSON.
    private static func text(of value: FieldValue?) -> String {
        switch value {
        case nil: return ""
        case .string(let text)?: return text
        case .int64(let number)?, .timestamp(let number)?: return String(number)
        case .double(let number)?: return String(number)
        case .boolean(let flag)?: return flag ? "true" : "false"
        case let other?:
            var writer = JSONWriter()
            other.writeValue(to: &writer)
            return writer.text
        }
    }
}
