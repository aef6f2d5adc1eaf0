import Foundation
import StratusKit

/// Where an app gets the message to show its user, once.
///
/// ```swift
/// let provider = StratusMessageProvider(database: container.publicCloudDatabase, supportedSchemaVersion: 1)
/// if let message = try await provider.messageToShow() {
///     present(message.localized(for: MessageContext(installedVersion: "2.3")))
///     await provider.markShown(message)
/// }
/// ```
public protocol MessageProvider: Sendable {
    /// The current message, unless there is none, it is newer than the app understands, or the user saw it.
    func messageToShow() async throws -> InAppMessage?
    /// Remembers that the user saw a message, so that it is not shown again.
    func markShown(_ message: InAppMessage) async
}

/// A provider answering a fixed message, for previews and tests.
public actor StubMessageProvider: MessageProvider {
    private var message: InAppMessage?
    private var shown: Set<String> = []

    public init(message: InAppMessage?) {
        self.message = message
    }

    public func messageToShow() async throws -> InAppMessage? {
        guard let message, !shown.contains(message.id) else { return nil }
        return message
    }

    public func markShown(_ message: InAppMessage) async {
        shown.insert(message.id)
    }
}

/// Remembers which message identifiers a user has seen.
public protocol ShownMessages: Sendable {
    func contains(_ id: String) async -> Bool
    func insert(_ id: String) async
}

/// Seen identifiers kept in `UserDefaults` (Foundation's on Linux too).
public struct UserDefaultsShownMessages: ShownMessages, @unchecked Sendable {
    private let defaults: UserDefaults
    private let key: String

    public init(defaults: UserDefaults = .standard, key: String) {
        self.defaults = defaults
        self.key = key
    }

    /// Seen identifiers of one container and environment: `StratusMessages.shown.<container>.<environment>`.
    public init(defaults: UserDefaults = .standard, database: Database) {
        self.init(defaults: defaults, key: "StratusMessages.shown.\(database.containerIdentifier).\(database.environment.rawValue)")
    }

    public func contains(_ id: String) async -> Bool {
        (defaults.stringArray(forKey: key) ?? []).contains(id)
    }

    public func insert(_ id: String) async {
        var ids = defaults.stringArray(forKey: key) ?? []
        if !ids.contains(id) { ids.append(id) }
        defaults.set(ids, forKey: key)
    }
}

/// Seen identifiers kept in memory only.
public actor InMemoryShownMessages: ShownMessages {
    private var ids: Set<String> = []

    public init() {}

    public func contains(_ id: String) async -> Bool { ids.contains(id) }
    public func insert(_ id: String) async { ids.insert(id) }
}

/// Fetches the one current message from a Stratus public database.
public struct StratusMessageProvider: MessageProvider {
    let database: Database
    let supportedSchemaVersion: Int
    let shown: any ShownMessages

    /// - Parameters:
    ///   - supportedSchemaVersion: the newest message format this app version understands; newer messages are ignored.
    ///   - shown: where seen identifiers are kept; by default `UserDefaults`, under a key of the database's
    ///     container and environment.
    public init(database: Database, supportedSchemaVersion: Int, shown: (any ShownMessages)? = nil) {
        self.database = database
        self.supportedSchemaVersion = supportedSchemaVersion
        self.shown = shown ?? UserDefaultsShownMessages(database: database)
    }

    public func messageToShow() async throws -> InAppMessage? {
        let query = Query(recordType: InAppMessage.recordType, filter: .field("isCurrent") == true)
        let page = try await database.records(matching: query, resultsLimit: 1)
        guard let record = try page.matchResults.first?.1.get(), let message = InAppMessage(record: record) else { return nil }
        guard message.schemaVersion <= supportedSchemaVersion, await !shown.contains(message.id) else { return nil }
        return message
    }

    public func markShown(_ message: InAppMessage) async {
        await shown.insert(message.id)
    }
}

/// Publishing messages, for an Admin user (or a server-to-server key with the Admin role).
public struct MessagePublisher: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Saves a message and makes it the current one: the previous current message stops being current first,
    /// since the schema allows one current message at a time.
    @discardableResult
    public func publish(_ message: InAppMessage) async throws -> InAppMessage {
        let current = Query(recordType: InAppMessage.recordType, filter: .field("isCurrent") == true)
        for (_, result) in try await database.records(matching: current).matchResults {
            var previous = try result.get()
            guard previous.recordID.recordName != message.id else { continue }
            previous["isCurrent"] = false
            try await database.save(previous)
        }
        var record = (try? await database.record(for: Record.ID(recordName: message.id))) ?? Record(recordType: InAppMessage.recordType, recordID: Record.ID(recordName: message.id))
        var published = message
        published.isCurrent = true
        published.fill(&record)
        guard let saved = InAppMessage(record: try await database.save(record)) else {
            throw StratusError(.internalError, "the saved message cannot be read back")
        }
        return saved
    }
}

/// The kit's schema file (`Messages.ckdb`): the `InAppMessage` type, World reads, Admin writes, one current message.
public enum MessageSchema {
    public static var text: String {
        guard let url = Bundle.module.url(forResource: "Messages", withExtension: "ckdb"), let text = try? String(contentsOf: url, encoding: .utf8) else {
            return ""
        }
        return text
    }
}
