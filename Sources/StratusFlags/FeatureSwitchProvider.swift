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
public final class StratusFeatureSwitchProvider: FeatureSwitchProvider, @unchecked Sendable {
    private let database: Database
    private let cacheFile: URL?
    private let lock = NSLock()
    private var context: FlagContext
    private var rules: [String: SwitchRule]
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
        rules = Dictionary((cached?.rules ?? []).map { ($0.identifier, $0) }, uniquingKeysWith: { _, last in last })
        overrides = cached?.overrides ?? [:]
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

    /// Fetches every switch's rule and keeps them.
    public func refresh() async throws {
        var fetched: [String: SwitchRule] = [:]
        for try await record in database.allRecords(matching: Query(recordType: SwitchRule.recordType)) {
            if let rule = SwitchRule(record: record) { fetched[rule.identifier] = rule }
        }
        lock.withLock { rules = fetched }
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
        var rules: [SwitchRule]
        var overrides: [String: Bool]
    }

    private func persist() {
        guard let cacheFile else { return }
        lock.lock()
        let state = CachedState(rules: rules.values.sorted { $0.identifier < $1.identifier }, overrides: overrides)
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
