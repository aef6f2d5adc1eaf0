import Foundation
import StratusKit

/// An item of a curated collection (a tip of the day, a featured article): shown between its publication and
/// expiry dates, to users of recent enough app versions, in their language.
public struct CuratedItem: Sendable, Hashable, Identifiable {
    public static let recordType = "CuratedItem"

    public var id: String
    public var collection: String
    public var title: LocalizedString
    public var body: LocalizedString?
    public var url: URL?
    public var image: Asset?
    public var publishedAt: Date
    public var expiresAt: Date
    public var minimumAppVersion: AppVersion
    /// Languages the item is for; `["*"]` is every language.
    public var locales: [String]

    public init(
        id: String = UUID().uuidString, collection: String, title: LocalizedString, body: LocalizedString? = nil, url: URL? = nil,
        image: Asset? = nil, publishedAt: Date = Date(), expiresAt: Date = .distantFuture, minimumAppVersion: AppVersion = AppVersion("0"),
        locales: [String] = ["*"]
    ) {
        self.id = id
        self.collection = collection
        self.title = title
        self.body = body
        self.url = url
        self.image = image
        self.publishedAt = publishedAt
        self.expiresAt = expiresAt
        self.minimumAppVersion = minimumAppVersion
        self.locales = locales
    }

    public init?(record: Record) {
        guard record.recordType == Self.recordType, let title = record["title"] as LocalizedString? else { return nil }
        let build = record["minimumAppBuild"] as Int? ?? 0
        self.init(
            id: record.recordID.recordName, collection: record["collection"] as String? ?? "", title: title, body: record["body"],
            url: (record["url"] as String?).flatMap(URL.init(string:)), image: record["image"],
            publishedAt: record["publishedAt"] as Date? ?? .distantPast, expiresAt: record["expiresAt"] as Date? ?? .distantFuture,
            minimumAppVersion: AppVersion("\(build / 1_000_000).\(build / 1_000 % 1_000).\(build % 1_000)"),
            locales: record["locales"] as [String]? ?? ["*"]
        )
    }
}

/// Reads and publishes curated collections in a public database.
///
/// ```swift
/// let tips = CuratedContent(database: container.publicCloudDatabase)
/// if let tip = try await tips.randomItem(in: "tips", context: FlagContext(appVersion: "2.4", userID: installationID)) {
///     show(tip.title.text(for: Locale.preferredLanguages) ?? "")
/// }
/// ```
public struct CuratedContent: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// A random item of a collection that is valid now for this user: dates, app version, and the user's language
    /// or every language (`"*"`), each such item as likely as another. It is found without reading the collection:
    /// the server filters, and a random point among the items' random keys picks one record.
    public func randomItem(in collection: String, context: FlagContext) async throws -> CuratedItem? {
        let base = context.language.split(separator: "-").first.map(String.init) ?? context.language
        let languages = Array(Set([context.language, base, "*"])).sorted()
        let valid: Filter = .field("collection") == collection && .field("publishedAt") <= context.now && .field("expiresAt") > context.now
            && .field("minimumAppBuild") <= AppVersion(context.appVersion).code
        let pick = Double.random(in: 0..<1)
        // The first candidate at or after a random point of [0, 1), wrapping around to the start. Candidates are the
        // items of any of the languages: the first of them is the first of each language's first.
        for range in [valid && .field("randomKey") >= pick, valid && .field("randomKey") < pick] {
            var first: (key: Double, record: Record)?
            for language in languages {
                let query = Query(recordType: CuratedItem.recordType, filter: range && .field("locales").contains(language), sort: [.ascending("randomKey")])
                guard let record = try await database.records(matching: query, resultsLimit: 1).matchResults.first?.1.get(),
                    let key = record["randomKey"] as Double?
                else { continue }
                if first == nil || key < first!.key { first = (key, record) }
            }
            if let first { return CuratedItem(record: first.record) }
        }
        return nil
    }

    /// Saves an item (Admin only), with its random key.
    @discardableResult
    public func publish(_ item: CuratedItem) async throws -> CuratedItem {
        var record = Record(recordType: CuratedItem.recordType, recordID: Record.ID(recordName: item.id))
        record["collection"] = item.collection
        record["title"] = item.title
        record["body"] = item.body
        record["url"] = item.url?.absoluteString
        record["image"] = item.image
        record["publishedAt"] = item.publishedAt
        record["expiresAt"] = min(item.expiresAt, Date(timeIntervalSince1970: 32_503_680_000))
        record["minimumAppBuild"] = item.minimumAppVersion.code
        record["locales"] = item.locales
        record["randomKey"] = Double.random(in: 0..<1)
        guard let saved = CuratedItem(record: try await database.save([record], savePolicy: .allKeys)[0]) else {
            throw StratusError(.internalError, "the saved item cannot be read back")
        }
        return saved
    }
}
