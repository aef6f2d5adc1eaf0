import Foundation
import StratusKit

/// Where an app asks whether a feature is on. Answers at once, from the last known state; ``refresh()``
/// updates it from the server.
///
/// ```swift
/// static let newEditor = FeatureSwitch(identifier: "newEditor", isEnabledByDefault: false)
///
/// let flags = StratusFeatureSwitchProvider(
///     database: container.publicCloudDatabase,
///     context: FlagContext(appVersion: "2.4", userID: installationID)
/// )
/// try? await flags.refresh()
/// if flags.isEnabled(newEditor) { … }
/// ```
public protocol FeatureSwitchProvider: Sendable {
    /// Whether a feature is on for this user: a local override first, then the server's rule, then the default.
    func isEnabled(_ feature: FeatureSwitch) -> Bool
    /// Fetches the switches' current state.
    func refresh() async throws
}

/// A provider with fixed answers, for previews and tests.
public struct StubFeatureSwitchProvider: FeatureSwitchProvider {
    let values: [String: Bool]

    public init(values: [String: Bool] = [:]) {
        self.values = values
    }

    public func isEnabled(_ feature: FeatureSwitch) -> Bool { values[feature.identifier] ?? feature.isEnabledByDefault }
    public func refresh() async throws {}
}

/// The switches' rules from a Stratus public database, evaluated on the device, kept in a file so that a cold
/// start without network answers with the last known state, and overridable locally for internal builds.
///
/// ``refresh()`` reads the public database's change feed (a Stratus addition: CloudKit's public database can only
/// be queried again whole), so a refresh brings only the switches saved or deleted since the last one.
public final class StratusFeatureSwitchProvider: FeatureSwitchProvider, @unchecked Sendable {
    private let database: Database
    private let cacheFile: URL?
    private let lock = NSLock()
    private var context: FlagContext
    /// The rules by the name of their record (deletions in the feed name records).
    private var switches: [String: SwitchRule]
    /// The rules by switch identifier, for ``isEnabled(_:)``.
    private var rules: [String: SwitchRule]
    /// Where the public database's feed was read up to.
    private var syncToken: SyncToken?
    private var overrides: [String: Bool] = [:]

    /// A provider whose last known state and overrides are kept in ``defaultCacheFile(for:)``, a file of the
    /// database's container and environment.
    /// - Parameter context: who asks; change it with ``update(context:)``.
    public convenience init(database: Database, context: FlagContext) {
        self.init(database: database, context: context, cacheFile: Self.defaultCacheFile(for: database))
    }

    /// - Parameters:
    ///   - context: who asks; change it with ``update(context:)``.
    ///   - cacheFile: where the last known state and the overrides are kept; `nil` keeps them in memory only.
    public init(database: Database, context: FlagContext, cacheFile: URL?) {
        self.database = database
        self.context = context
        self.cacheFile = cacheFile
        let cached = cacheFile.flatMap { try? Data(contentsOf: $0) }.flatMap { try? JSONDecoder().decode(CachedState.self, from: $0) }
        // A cache written before the feed keeps rules by identifier: they answer until a refresh reads everything.
        switches = cached?.switches ?? Dictionary((cached?.rules ?? []).map { ($0.identifier, $0) }, uniquingKeysWith: { _, last in last })
        rules = Self.byIdentifier(switches)
        syncToken = cached?.switches == nil ? nil : cached?.syncToken.map(SyncToken.init)
        overrides = cached?.overrides ?? [:]
    }

    private static func byIdentifier(_ switches: [String: SwitchRule]) -> [String: SwitchRule] {
        Dictionary(switches.values.map { ($0.identifier, $0) }, uniquingKeysWith: { first, last in first.identifier <= last.identifier ? last : first })
    }

    /// `<caches>/StratusFlags/<container identifier>/<environment>/switches.json`: one file per container and
    /// environment, so that an override made for one app does not reach another.
    public static func defaultCacheFile(for database: Database) -> URL? {
        FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first?
            .appendingPathComponent("StratusFlags")
            .appendingPathComponent(database.containerIdentifier)
            .appendingPathComponent(database.environment.rawValue)
            .appendingPathComponent("switches.json")
    }

    public func isEnabled(_ feature: FeatureSwitch) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let override = overrides[feature.identifier] { return override }
        return rules[feature.identifier]?.isOn(for: context) ?? feature.isEnabledByDefault
    }

    /// Brings the rules up to date from the public database's change feed: every switch the first time, then only
    /// the switches saved or deleted since the last refresh (one request when nothing changed), and keeps them.
    /// - Throws: ``StratusError``; the last known rules stay.
    public func refresh() async throws {
        var (token, updated) = lock.withLock { (syncToken, switches) }
        if token == nil { updated = [:] }
        while true {
            let page: (modificationResultsByID: [Record.ID: Result<Record, any Error>], deletions: [(recordID: Record.ID, recordType: String)], changeToken: SyncToken, moreComing: Bool)
            do {
                page = try await database.recordZoneChanges(inZoneWith: .default, since: token, desiredRecordTypes: [SwitchRule.recordType])
            } catch let error as StratusError where error.code == .changeTokenExpired && token != nil {
                (token, updated) = (nil, [:])
                continue
            }
            for case .success(let record) in page.modificationResultsByID.values {
                updated[record.recordID.recordName] = SwitchRule(record: record)
            }
            for deletion in page.deletions { updated[deletion.recordID.recordName] = nil }
            token = page.changeToken
            if !page.moreComing { break }
        }
        lock.withLock {
            switches = updated
            rules = Self.byIdentifier(updated)
            syncToken = token
        }
        persist()
    }

    /// Forces a switch on or off on this device (internal builds, QA); `nil` removes the override. Kept across launches.
    public func setOverride(_ value: Bool?, for feature: FeatureSwitch) {
        lock.lock()
        overrides[feature.identifier] = value
        lock.unlock()
        persist()
    }

    /// Evaluates the rules for another user, version or moment from now on.
    public func update(context: FlagContext) {
        lock.lock()
        self.context = context
        lock.unlock()
    }

    private struct CachedState: Codable {
        /// Rules by identifier, as caches before the feed kept them.
        var rules: [SwitchRule]?
        /// Rules by record name, and where the feed was read up to.
        var switches: [String: SwitchRule]?
        var syncToken: String?
        var overrides: [String: Bool]
    }

    private func persist() {
        guard let cacheFile else { return }
        lock.lock()
        let state = CachedState(switches: switches, syncToken: syncToken?.rawValue, overrides: overrides)
        lock.unlock()
        guard let data = try? JSONEncoder().encode(state) else { return }
        try? FileManager.default.createDirectory(at: cacheFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try? data.write(to: cacheFile, options: .atomic)
    }
}

/// Saving switches, for an Admin user.
public struct FeatureSwitchPublisher: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    /// Creates or replaces the rule of a switch (its record is named by the identifier).
    @discardableResult
    public func save(_ rule: SwitchRule) async throws -> SwitchRule {
        let id = Record.ID(recordName: rule.identifier)
        var record = (try? await database.record(for: id)) ?? Record(recordType: SwitchRule.recordType, recordID: id)
        rule.fill(&record)
        guard let saved = SwitchRule(record: try await database.save(record)) else {
            throw StratusError(.internalError, "the saved switch cannot be read back")
        }
        return saved
    }

    /// Deletes a switch: apps fall back to its ``FeatureSwitch/isEnabledByDefault`` at their next refresh.
    public func delete(identifier: String) async throws {
        try await database.deleteRecord(withID: Record.ID(recordName: identifier))
    }
}

/// The kit's schema file (`Flags.ckdb`): `FeatureSwitch` and `CuratedItem`, World reads, Admin writes.
public enum FlagsSchema {
    public static var text: String {
        guard let url = Bundle.module.url(forResource: "Flags", withExtension: "ckdb"), let text = try? String(contentsOf: url, encoding: .utf8) else {
            return ""
        }
        return text
    }
}
