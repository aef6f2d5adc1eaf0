import Foundation

/// How a container's accounts sign up, prove their address, recover and leave: one JSON object per container, set through the admin API and the console.
///
/// Every key is optional in JSON; a missing one takes its default, so settings written by an older version read
/// the same in a newer one.
public struct AccountSettings: Sendable, Hashable, Codable {
    /// Whether an unverified email address may sign in.
    public enum EmailVerification: String, Sendable, Hashable, Codable, CaseIterable {
        /// Sign-in works before the address is verified; apps read `emailVerified`.
        case optional
        /// Sign-in (and sign-up's session) wait until the address is verified.
        case required
    }

    /// What becomes of a deleted user's records in the public database.
    public enum DeletedUserPublicRecords: String, Sendable, Hashable, Codable, CaseIterable {
        /// They stay, with no owner: only the container's developer (server-to-server keys) changes them since.
        case keep
        /// They are deleted with the account.
        case delete
    }

    /// Whether every account must use a second factor.
    public enum SecondFactor: String, Sendable, Hashable, Codable, CaseIterable {
        /// Each user chooses.
        case optional
        /// An account without one sets one up (TOTP) at its next sign-in before it gets a session.
        case required
    }

    /// An Android app that signs in with the container's passkeys: the server lists it in its
    /// `/.well-known/assetlinks.json`, and the origin its signing certificate gives it may use the passkeys.
    public struct AndroidApp: Sendable, Hashable, Codable {
        /// `com.example.notes`.
        public var packageName: String
        /// The SHA-256 fingerprints of its signing certificates, as `keytool` prints them (`AB:CD:…`, 32 bytes).
        public var sha256CertFingerprints: [String]

        public init(packageName: String, sha256CertFingerprints: [String]) {
            self.packageName = packageName
            self.sha256CertFingerprints = sha256CertFingerprints
        }
    }

    /// An OpenID Connect provider users may sign in with (Google, Microsoft, a company's own): found by its issuer's
    /// discovery document, its ID tokens checked against the keys it publishes.
    public struct OpenIDProvider: Sendable, Hashable, Codable {
        /// How the API and accounts name it: lowercase letters, digits and dashes (`google`, `acme-sso`).
        public var name: String
        /// The issuer URL (`https://accounts.google.com`): its `/.well-known/openid-configuration` is read.
        public var issuer: String
        /// The client IDs its ID tokens may be for (their `aud`): the app's, on each platform. The first is the one the
        /// hosted sign-in page signs in with (the web flow), with the client secret kept as the container's secret
        /// `openid.{name}.clientSecret`.
        public var clientIDs: [String]

        public init(name: String, issuer: String, clientIDs: [String]) {
            self.name = name
            self.issuer = issuer
            self.clientIDs = clientIDs
        }
    }

    /// The CloudKit container a container's public database was imported from (`stratus import cloudkit`): where
    /// users' claims to their CloudKit identity are checked (`users/caller` with the user's web auth token).
    public struct CloudKitSource: Sendable, Hashable, Codable {
        /// The CloudKit Web Services server: `https://api.apple-cloudkit.com`, or another that speaks the protocol.
        public var url: String
        public var containerID: String
        /// `development` or `production`.
        public var environment: String
        /// An API token of the source container (CloudKit console: API Access), which web auth tokens go with.
        public var apiToken: String

        public init(url: String, containerID: String, environment: String, apiToken: String) {
            self.url = url
            self.containerID = containerID
            self.environment = environment
            self.apiToken = apiToken
        }
    }

    /// The app's name in mail and on the hosted pages; when unset, the container ID's last part
    /// (``displayName(containerID:)``).
    public var appName: String?

    /// The name people read for the app: ``appName``, else the last part of the container ID (`Notes` for
    /// `iCloud.com.example.Notes`).
    public func displayName(containerID: String) -> String {
        if let appName, !appName.isEmpty { return appName }
        let last = containerID.split(separator: ".").last.map(String.init) ?? containerID
        return last.isEmpty ? containerID : last
    }
    public var emailVerification: EmailVerification
    /// The address mail comes from; the server's `--smtp-from` when unset.
    public var senderAddress: String?
    /// The name mail comes from; ``appName`` when unset.
    public var senderName: String?
    /// The languages the container writes mail in (BCP 47 tags such as `en`, `fr`, `pt-BR`), the first the default.
    public var languages: [String]
    public var deletedUserPublicRecords: DeletedUserPublicRecords
    public var secondFactor: SecondFactor
    /// Where the hosted sign-in page may send a signed-in user back, with their `ckWebAuthToken`: addresses a
    /// `redirect` must start with (`https://app.example.com/`).
    public var redirectURLs: [String]
    /// The domain passkeys are bound to (WebAuthn's relying party ID, such as `example.com`): the host of the
    /// server's public URL when unset. An iOS app that signs in with passkeys lists it in its associated domains
    /// (`webcredentials:example.com`).
    public var passkeyRelyingPartyID: String?
    /// Origins besides the server's own and `https://` + ``passkeyRelyingPartyID`` that may use the container's
    /// passkeys: a web app's (`https://app.example.com`) or an Android app's (`android:apk-key-hash:…`).
    public var passkeyOrigins: [String]
    /// Apple apps (`TEAMID.com.example.Notes`) that sign in with the container's passkeys: the server lists them in
    /// its `/.well-known/apple-app-site-association`, which their `webcredentials:` associated domain fetches.
    public var passkeyAppleAppIDs: [String]
    public var passkeyAndroidApps: [AndroidApp]
    /// The client IDs Sign in with Apple's identity tokens may be for (their `aud`): the app's bundle IDs, and the
    /// Services IDs of its web sign-in. Empty: Sign in with Apple is off.
    public var appleClientIDs: [String]
    /// Apple's developer team ID (10 characters): with ``appleKeyID`` and the key itself (kept as the container's
    /// secret `apple.privateKey`, never returned), the server signs the client secrets Apple asks for when it keeps
    /// and revokes users' tokens.
    public var appleTeamID: String?
    /// The ID of the team's Sign in with Apple key (10 characters).
    public var appleKeyID: String?
    /// OpenID Connect providers users may sign in with.
    public var openIDProviders: [OpenIDProvider]
    /// Where users' CloudKit identities are checked when they claim what they had there; none turns claims off.
    public var cloudKitSource: CloudKitSource?
    /// Days after which an anonymous account (`signup/anonymous`) that nothing was attached to and that nobody used
    /// since is removed with its data; 0 keeps them.
    public var anonymousAccountLifetimeDays: Int

    public init(
        appName: String? = nil, emailVerification: EmailVerification = .optional, senderAddress: String? = nil, senderName: String? = nil,
        languages: [String] = ["en"], deletedUserPublicRecords: DeletedUserPublicRecords = .keep, secondFactor: SecondFactor = .optional,
        redirectURLs: [String] = [], passkeyRelyingPartyID: String? = nil, passkeyOrigins: [String] = [], passkeyAppleAppIDs: [String] = [],
        passkeyAndroidApps: [AndroidApp] = [], anonymousAccountLifetimeDays: Int = 30, appleClientIDs: [String] = [],
        openIDProviders: [OpenIDProvider] = [], appleTeamID: String? = nil, appleKeyID: String? = nil, cloudKitSource: CloudKitSource? = nil
    ) {
        self.cloudKitSource = cloudKitSource
        self.appleTeamID = appleTeamID
        self.appleKeyID = appleKeyID
        self.openIDProviders = openIDProviders
        self.appleClientIDs = appleClientIDs
        self.anonymousAccountLifetimeDays = anonymousAccountLifetimeDays
        self.passkeyAppleAppIDs = passkeyAppleAppIDs
        self.passkeyAndroidApps = passkeyAndroidApps
        self.passkeyRelyingPartyID = passkeyRelyingPartyID
        self.passkeyOrigins = passkeyOrigins
        self.redirectURLs = redirectURLs
        self.secondFactor = secondFactor
        self.appName = appName
        self.emailVerification = emailVerification
        self.senderAddress = senderAddress
        self.senderName = senderName
        self.languages = languages
        self.deletedUserPublicRecords = deletedUserPublicRecords
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = AccountSettings()
        appName = try container.decodeIfPresent(String.self, forKey: .appName)
        emailVerification = try container.decodeIfPresent(EmailVerification.self, forKey: .emailVerification) ?? defaults.emailVerification
        senderAddress = try container.decodeIfPresent(String.self, forKey: .senderAddress)
        senderName = try container.decodeIfPresent(String.self, forKey: .senderName)
        languages = try container.decodeIfPresent([String].self, forKey: .languages) ?? defaults.languages
        deletedUserPublicRecords =
            try container.decodeIfPresent(DeletedUserPublicRecords.self, forKey: .deletedUserPublicRecords) ?? defaults.deletedUserPublicRecords
        secondFactor = try container.decodeIfPresent(SecondFactor.self, forKey: .secondFactor) ?? defaults.secondFactor
        redirectURLs = try container.decodeIfPresent([String].self, forKey: .redirectURLs) ?? []
        passkeyRelyingPartyID = try container.decodeIfPresent(String.self, forKey: .passkeyRelyingPartyID)
        passkeyOrigins = try container.decodeIfPresent([String].self, forKey: .passkeyOrigins) ?? []
        passkeyAppleAppIDs = try container.decodeIfPresent([String].self, forKey: .passkeyAppleAppIDs) ?? []
        passkeyAndroidApps = try container.decodeIfPresent([AndroidApp].self, forKey: .passkeyAndroidApps) ?? []
        anonymousAccountLifetimeDays = try container.decodeIfPresent(Int.self, forKey: .anonymousAccountLifetimeDays) ?? defaults.anonymousAccountLifetimeDays
        appleClientIDs = try container.decodeIfPresent([String].self, forKey: .appleClientIDs) ?? []
        openIDProviders = try container.decodeIfPresent([OpenIDProvider].self, forKey: .openIDProviders) ?? []
        appleTeamID = try container.decodeIfPresent(String.self, forKey: .appleTeamID)
        appleKeyID = try container.decodeIfPresent(String.self, forKey: .appleKeyID)
        cloudKitSource = try container.decodeIfPresent(CloudKitSource.self, forKey: .cloudKitSource)
    }

    /// The settings as stored: compact JSON with sorted keys.
    public var encoded: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and arrays of strings always encode.
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Settings stored by ``encoded``; the defaults for text that does not parse.
    public init(encoded: String) {
        self = (try? JSONDecoder().decode(AccountSettings.self, from: Data(encoded.utf8))) ?? AccountSettings()
    }

    /// Whether the hosted sign-in page may send a user to `address`: it starts with one of ``redirectURLs`` that
    /// ends with `/`, or equals one that does not.
    public func allowsRedirect(to address: String) -> Bool {
        redirectURLs.contains { allowed in allowed.hasSuffix("/") ? address.hasPrefix(allowed) : address == allowed }
    }

    /// The language among ``languages`` that best serves `preferred` (an `Accept-Language` list or a single tag,
    /// best first): an exact match, else one with the same primary language, else the first of ``languages``.
    public func language(for preferred: [String]) -> String {
        let offered = languages.isEmpty ? ["en"] : languages
        for wanted in preferred {
            if let exact = offered.first(where: { $0.caseInsensitiveCompare(wanted) == .orderedSame }) { return exact }
            let primary = wanted.split(separator: "-").first.map { String($0).lowercased() } ?? ""
            if let close = offered.first(where: { $0.split(separator: "-").first.map { String($0).lowercased() } == primary }) { return close }
        }
        return offered[0]
    }
}
