/// A notification as APNs, the courier and the event stream carry it: `{aps, ck}` (`docs/protocol.md#notification-payloads`).
public struct NotificationPayload: Sendable, Hashable, Decodable, JSONWritable {
    /// What the notification shows: `aps`, rendered from the subscription's ``NotificationInfo``.
    public struct APS: Sendable, Hashable, Decodable, JSONWritable {
        public var alert: Alert?
        public var sound: String?
        /// Sets the app's badge to this number.
        public var badge: Int64?
        /// A silent push: wakes the app without showing anything.
        public var contentAvailable: Bool
        public var category: String?

        public init(alert: Alert? = nil, sound: String? = nil, badge: Int64? = nil, contentAvailable: Bool = false, category: String? = nil) {
            self.alert = alert
            self.sound = sound
            self.badge = badge
            self.contentAvailable = contentAvailable
            self.category = category
        }

        private enum Key: String, CodingKey {
            case alert, sound, badge, category
            case contentAvailable = "content-available"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            alert = try container.decodeIfPresent(Alert.self, forKey: .alert)
            sound = try container.decodeIfPresent(String.self, forKey: .sound)
            badge = try container.decodeIfPresent(Int64.self, forKey: .badge)
            contentAvailable = try container.decodeIfPresent(Int64.self, forKey: .contentAvailable) == 1
            category = try container.decodeIfPresent(String.self, forKey: .category)
        }

        public func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.member("alert", alert)
            writer.member("badge", badge)
            writer.member("category", category)
            writer.member("content-available", contentAvailable ? 1 : nil)
            writer.member("sound", sound)
            writer.endObject()
        }
    }

    /// The alert: `{body, title, loc-key, loc-args, action-loc-key, launch-image}`, or a bare string (its body).
    public struct Alert: Sendable, Hashable, Decodable, JSONWritable {
        public var body: String?
        public var title: String?
        public var localizationKey: String?
        /// The arguments of the localized alert: the values of the fields the subscription named.
        public var localizationArgs: [String]?
        public var actionLocalizationKey: String?
        public var launchImage: String?

        public init(
            body: String? = nil, title: String? = nil, localizationKey: String? = nil, localizationArgs: [String]? = nil,
            actionLocalizationKey: String? = nil, launchImage: String? = nil
        ) {
            self.body = body
            self.title = title
            self.localizationKey = localizationKey
            self.localizationArgs = localizationArgs
            self.actionLocalizationKey = actionLocalizationKey
            self.launchImage = launchImage
        }

        /// Whether the alert has anything to show.
        public var isEmpty: Bool { self == Alert() }

        private enum Key: String, CodingKey {
            case body, title
            case localizationKey = "loc-key"
            case localizationArgs = "loc-args"
            case actionLocalizationKey = "action-loc-key"
            case launchImage = "launch-image"
        }

        public init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self.init(body: text)
                return
            }
            let container = try decoder.container(keyedBy: Key.self)
            self.init(
                body: try container.decodeIfPresent(String.self, forKey: .body),
                title: try container.decodeIfPresent(String.self, forKey: .title),
                localizationKey: try container.decodeIfPresent(String.self, forKey: .localizationKey),
                localizationArgs: try container.decodeIfPresent([String].self, forKey: .localizationArgs),
                actionLocalizationKey: try container.decodeIfPresent(String.self, forKey: .actionLocalizationKey),
                launchImage: try container.decodeIfPresent(String.self, forKey: .launchImage)
            )
        }

        public func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.member("action-loc-key", actionLocalizationKey)
            writer.member("body", body)
            writer.member("launch-image", launchImage)
            if let localizationArgs {
                writer.array("loc-args", localizationArgs) { writer, argument in writer.string(argument) }
            }
            writer.member("loc-key", localizationKey)
            writer.member("title", title)
            writer.endObject()
        }
    }

    /// Why a query subscription fired (`fo`).
    public enum QueryReason: Int64, Sendable, Hashable, Codable {
        case recordCreated = 1, recordUpdated = 2, recordDeleted = 3
    }

    /// What fired the subscription.
    public enum Subject: Sendable, Hashable {
        /// A record matching a query subscription (`ck.qry`), with the values of the fields it asked for.
        case query(recordName: String, zoneID: ZoneID, reason: QueryReason, fields: [String: FieldValue])
        /// A change in a zone of a zone subscription (`ck.fet`).
        case zone(ZoneID)
        /// A change in the database of a database subscription (`ck.met`).
        case database
    }

    public var aps: APS
    /// The container (`ck.cid`).
    public var containerIdentifier: String?
    /// The notification's ID (`ck.nid`).
    public var notificationID: String?
    /// The user the notification is for (`ck.ckuserid`).
    public var userRecordName: String?
    public var subscriptionID: String
    /// The subscription's database (`dbs`: 1 public, 2 private, 3 shared).
    public var databaseScope: DatabaseScope
    public var subject: Subject

    public init(
        aps: APS, containerIdentifier: String?, notificationID: String?, userRecordName: String?, subscriptionID: String,
        databaseScope: DatabaseScope, subject: Subject
    ) {
        self.aps = aps
        self.containerIdentifier = containerIdentifier
        self.notificationID = notificationID
        self.userRecordName = userRecordName
        self.subscriptionID = subscriptionID
        self.databaseScope = databaseScope
        self.subject = subject
    }

    private enum Key: String, CodingKey {
        case aps, ck
    }

    private enum CKKey: String, CodingKey {
        case cid, nid, ckuserid, qry, fet, met
    }

    private enum DetailKey: String, CodingKey {
        case sid, dbs, rid, fo, zid, zoid, af
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        aps = try container.decodeIfPresent(APS.self, forKey: .aps) ?? APS()
        let ck = try container.nestedContainer(keyedBy: CKKey.self, forKey: .ck)
        containerIdentifier = try ck.decodeIfPresent(String.self, forKey: .cid)
        notificationID = try ck.decodeIfPresent(String.self, forKey: .nid)
        userRecordName = try ck.decodeIfPresent(String.self, forKey: .ckuserid)
        let detail: KeyedDecodingContainer<DetailKey>
        if ck.contains(.qry) {
            detail = try ck.nestedContainer(keyedBy: DetailKey.self, forKey: .qry)
            var fields: [String: FieldValue] = [:]
            for (name, json) in try detail.decodeIfPresent([String: JSONValue].self, forKey: .af) ?? [:] {
                guard let type = FieldValue.inferredType(of: json) else {
                    throw DecodingError.dataCorruptedError(forKey: .af, in: detail, debugDescription: "the value of \(name) has no recognizable type")
                }
                fields[name] = try FieldValue(json: json, as: type)
            }
            subject = .query(
                recordName: try detail.decode(String.self, forKey: .rid), zoneID: try Self.zoneID(in: detail),
                reason: try detail.decode(QueryReason.self, forKey: .fo), fields: fields
            )
        } else if ck.contains(.fet) {
            detail = try ck.nestedContainer(keyedBy: DetailKey.self, forKey: .fet)
            subject = .zone(try Self.zoneID(in: detail))
        } else {
            detail = try ck.nestedContainer(keyedBy: DetailKey.self, forKey: .met)
            subject = .database
        }
        subscriptionID = try detail.decode(String.self, forKey: .sid)
        let code = try detail.decode(Int64.self, forKey: .dbs)
        guard let scope = Self.scopes.first(where: { $0.value == code })?.key else {
            throw DecodingError.dataCorruptedError(forKey: .dbs, in: detail, debugDescription: "\(code) is not a database scope")
        }
        databaseScope = scope
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("aps", aps)
        writer.key("ck")
        writer.beginObject()
        writer.member("ce", 2)
        writer.member("cid", containerIdentifier)
        writer.member("ckuserid", userRecordName)
        switch subject {
        case .query(let recordName, let zoneID, let reason, let fields):
            writer.member("nid", notificationID)
            writer.key("qry")
            writer.beginObject()
            if !fields.isEmpty {
                writer.key("af")
                writer.beginObject()
                for name in fields.keys.sorted() {
                    writer.key(name)
                    fields[name]!.writeValue(to: &writer)
                }
                writer.endObject()
            }
            writer.member("dbs", Self.scopes[databaseScope])
            writer.member("fo", reason.rawValue)
            writer.member("rid", recordName)
            writer.member("sid", subscriptionID)
            writeZone(zoneID, to: &writer)
            writer.endObject()
        case .zone(let zoneID):
            writer.key("fet")
            writer.beginObject()
            writer.member("dbs", Self.scopes[databaseScope])
            writer.member("sid", subscriptionID)
            writeZone(zoneID, to: &writer)
            writer.endObject()
            writer.member("nid", notificationID)
        case .database:
            writer.key("met")
            writer.beginObject()
            writer.member("dbs", Self.scopes[databaseScope])
            writer.member("sid", subscriptionID)
            writer.endObject()
            writer.member("nid", notificationID)
        }
        writer.endObject()
        writer.endObject()
    }

    /// `dbs`: `CKDatabase.Scope`'s raw values.
    private static let scopes: [DatabaseScope: Int64] = [.public: 1, .private: 2, .shared: 3]

    /// The public database's zones are owned by `_defaultOwner`.
    public static let publicZoneOwner = "_defaultOwner"

    private func writeZone(_ zoneID: ZoneID, to writer: inout JSONWriter) {
        writer.member("zid", zoneID.zoneName)
        writer.member("zoid", zoneID.ownerRecordName ?? Self.publicZoneOwner)
    }

    private static func zoneID(in detail: KeyedDecodingContainer<DetailKey>) throws -> ZoneID {
        ZoneID(
            zoneName: try detail.decodeIfPresent(String.self, forKey: .zid) ?? ZoneID.defaultZoneName,
            ownerRecordName: try detail.decodeIfPresent(String.self, forKey: .zoid)
        )
    }
}
