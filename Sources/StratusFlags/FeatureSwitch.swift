import Foundation
import StratusKit

/// A feature an app can turn on and off without a release.
public struct FeatureSwitch: Sendable, Hashable {
    public var identifier: String
    /// The answer before any state is known (first launch without network), and for switches with no record.
    public var isEnabledByDefault: Bool

    public init(identifier: String, isEnabledByDefault: Bool = false) {
        self.identifier = identifier
        self.isEnabledByDefault = isEnabledByDefault
    }
}

/// Who asks: what targeting rules are evaluated against.
public struct FlagContext: Sendable, Hashable {
    /// The app's version (`CFBundleShortVersionString`).
    public var appVersion: String
    /// The user's language (`en`, `pt-BR`).
    public var language: String
    /// `iOS`, `macOS`, `watchOS`, `tvOS`, `visionOS`, `Linux`...
    public var platform: String
    /// A stable user or device identifier: it keeps a user in or out of a percentage rollout.
    public var userID: String
    public var now: Date

    public init(appVersion: String, language: String = Locale.preferredLanguages.first ?? "en", platform: String = FlagContext.currentPlatform, userID: String, now: Date = Date()) {
        self.appVersion = appVersion
        self.language = language
        self.platform = platform
        self.userID = userID
        self.now = now
    }

    /// The platform this code runs on.
    public static var currentPlatform: String {
        #if os(iOS)
        "iOS"
        #elseif os(macOS)
        "macOS"
        #elseif os(watchOS)
        "watchOS"
        #elseif os(tvOS)
        "tvOS"
        #elseif os(visionOS)
        "visionOS"
        #else
        "Linux"
        #endif
    }

    /// Whether the user's language is one of `locales` (`pt-BR` matches `pt`); an empty list matches everyone.
    func speaks(one of: [String]) -> Bool {
        guard !of.isEmpty else { return true }
        let base = language.split(separator: "-").first.map(String.init) ?? language
        return of.contains(language) || of.contains(base) || of.contains("*")
    }
}

/// A switch's state on the server, with its targeting: one `FeatureSwitch` record.
public struct SwitchRule: Sendable, Hashable, Codable {
    public var identifier: String
    public var isEnabled: Bool
    /// Languages the switch is on for; empty is everyone.
    public var locales: [String]
    /// Platforms the switch is on for; empty is every platform.
    public var platforms: [String]
    public var minimumAppVersion: String?
    public var maximumAppVersion: String?
    public var startDate: Date?
    public var endDate: Date?
    /// The share of users it is on for, 0...100; `nil` is everyone.
    public var rolloutPercentage: Int?

    public init(
        identifier: String, isEnabled: Bool, locales: [String] = [], platforms: [String] = [], minimumAppVersion: String? = nil,
        maximumAppVersion: String? = nil, startDate: Date? = nil, endDate: Date? = nil, rolloutPercentage: Int? = nil
    ) {
        self.identifier = identifier
        self.isEnabled = isEnabled
        self.locales = locales
        self.platforms = platforms
        self.minimumAppVersion = minimumAppVersion
        self.maximumAppVersion = maximumAppVersion
        self.startDate = startDate
        self.endDate = endDate
        self.rolloutPercentage = rolloutPercentage
    }

    /// Whether the switch is on for this user, now.
    public func isOn(for context: FlagContext) -> Bool {
        guard isEnabled, context.speaks(one: locales) else { return false }
        if !platforms.isEmpty && !platforms.contains(where: { $0.caseInsensitiveCompare(context.platform) == .orderedSame }) { return false }
        let version = AppVersion(context.appVersion)
        if let minimum = minimumAppVersion, version < AppVersion(minimum) { return false }
        if let maximum = maximumAppVersion, version > AppVersion(maximum) { return false }
        if let start = startDate, context.now < start { return false }
        if let end = endDate, context.now >= end { return false }
        if let percentage = rolloutPercentage {
            return Self.bucket(identifier: identifier, userID: context.userID) < percentage
        }
        return true
    }

    /// A user's place in a switch's rollout, 0...99: stable for a user and switch, independent across switches.
    public static func bucket(identifier: String, userID: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(identifier):\(userID)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return Int(hash % 100)
    }
}

extension SwitchRule {
    /// The record type switches are kept as (see `Flags.ckdb`).
    public static let recordType = "FeatureSwitch"

    public init?(record: Record) {
        guard record.recordType == Self.recordType else { return nil }
        self.init(
            identifier: record["identifier"] as String? ?? record.recordID.recordName, isEnabled: record["isEnabled"] as Bool? ?? false,
            locales: record["locales"] as [String]? ?? [], platforms: record["platforms"] as [String]? ?? [],
            minimumAppVersion: record["minimumAppVersion"], maximumAppVersion: record["maximumAppVersion"],
            startDate: record["startDate"], endDate: record["endDate"], rolloutPercentage: record["rolloutPercentage"]
        )
    }

    /// Writes the rule into a record (a fetched one to update it, or a new one named by the identifier).
    public func fill(_ record: inout Record) {
        record["identifier"] = identifier
        record["isEnabled"] = isEnabled
        record["locales"] = locales.isEmpty ? nil : locales
        record["platforms"] = platforms.isEmpty ? nil : platforms
        record["minimumAppVersion"] = minimumAppVersion
        record["maximumAppVersion"] = maximumAppVersion
        record["startDate"] = startDate
        record["endDate"] = endDate
        record["rolloutPercentage"] = rolloutPercentage
    }
}
