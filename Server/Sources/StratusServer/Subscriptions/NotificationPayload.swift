import StratusModel
import StratusStore

/// Renders a notification as CloudKit's APNs-style payload (`ckws-protocol.md` §6.3): `aps` from the
/// subscription's `notificationInfo`, and `ck` saying which subscription fired on which record.
enum NotificationPayload {
    static func render(_ entry: SubscriptionIndex.Entry, event: RecordEvent, notificationID: String) -> String {
        let info = entry.input.notificationInfo ?? NotificationInfo()
        return JSONWriter.object { writer in
            writer.key("aps")
            writeAPS(info, fields: event.fields, to: &writer)
            writer.key("ck")
            writer.beginObject()
            writer.key("ce")
            writer.integer(2)
            writer.key("cid")
            writer.string(event.zone.database.containerID)
            writer.key("ckuserid")
            writer.string(entry.stored.owner)
            let scope: Int64 = switch entry.stored.database.scope {
            case .public: 1
            case .private: 2
            case .shared: 3
            }
            switch entry.input.subscriptionType ?? .query {
            case .query:
                writer.key("nid")
                writer.string(notificationID)
                writer.key("qry")
                writer.beginObject()
                let carried = info.carriedFields.filter { event.fields[$0] != nil }
                if !carried.isEmpty {
                    writer.key("af")
                    writer.beginObject()
                    for name in carried.sorted() {
                        writer.key(name)
                        // Stored asset identities stay on the server.
                        event.fields[name]!.mappingAssets { Asset(fileChecksum: $0.fileChecksum, size: $0.size) }.writeValue(to: &writer)
                    }
                    writer.endObject()
                }
                writer.key("dbs")
                writer.integer(scope)
                writer.key("fo")
                writer.integer(Int64(event.kind.rawValue))
                writer.key("rid")
                writer.string(event.record.recordName)
                writer.key("sid")
                writer.string(entry.stored.id)
                writeZone(event.zone, to: &writer)
                writer.endObject()
            case .zone:
                writer.key("fet")
                writer.beginObject()
                writer.key("dbs")
                writer.integer(scope)
                writer.key("sid")
                writer.string(entry.stored.id)
                writeZone(event.zone, to: &writer)
                writer.endObject()
                writer.key("nid")
                writer.string(notificationID)
            case .database:
                writer.key("met")
                writer.beginObject()
                writer.key("dbs")
                writer.integer(scope)
                writer.key("sid")
                writer.string(entry.stored.id)
                writer.endObject()
                writer.key("nid")
                writer.string(notificationID)
            }
            writer.endObject()
        }.text
    }

    private static func writeZone(_ zone: ZoneRef, to writer: inout JSONWriter) {
        writer.key("zid")
        writer.string(zone.zoneName)
        writer.key("zoid")
        writer.string(zone.database.scope == .public ? "_defaultOwner" : zone.database.ownerRecordName)
    }

    /// `{alert: {body, title, loc-key, loc-args, action-loc-key, launch-image}, sound, badge, content-available, category}`.
    private static func writeAPS(_ info: NotificationInfo, fields: [String: FieldValue], to writer: inout JSONWriter) {
        writer.beginObject()
        let alert: [(String, JSONValue?)] = [
            ("action-loc-key", info.alertActionLocalizationKey.map(JSONValue.string)),
            ("body", info.alertBody.map(JSONValue.string)),
            ("launch-image", info.alertLaunchImage.map(JSONValue.string)),
            ("loc-args", info.alertLocalizationArgs.map { names in .array(names.map { .string(text(of: fields[$0])) }) }),
            ("loc-key", info.alertLocalizationKey.map(JSONValue.string)),
            ("title", info.title.map(JSONValue.string)),
        ]
        if alert.contains(where: { $0.1 != nil }) {
            writer.key("alert")
            writer.beginObject()
            for (key, value) in alert {
                guard let value else { continue }
                writer.key(key)
                value.write(to: &writer)
            }
            writer.endObject()
        }
        if info.shouldBadge == true {
            writer.key("badge")
            writer.integer(1)
        }
        if let category = info.category {
            writer.key("category")
            writer.string(category)
        }
        if info.shouldSendContentAvailable == true {
            writer.key("content-available")
            writer.integer(1)
        }
        if let sound = info.soundName {
            writer.key("sound")
            writer.string(sound)
        }
        writer.endObject()
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
