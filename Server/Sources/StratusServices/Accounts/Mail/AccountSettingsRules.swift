import Foundation
import StratusModel
import StratusStore

/// What the admin API accepts as a container's account settings and mail templates.
package enum AccountSettingsRules {
    /// The settings, trimmed, or a `BAD_REQUEST` naming what is wrong.
    package static func validated(_ settings: AccountSettings) throws -> AccountSettings {
        var settings = settings
        settings.appName = settings.appName.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let name = settings.appName, name.count > 100 { throw ServiceError.invalidArgument("appName has more than 100 characters") }
        if let address = settings.senderAddress, !address.isEmpty {
            settings.senderAddress = try EmailAddress.normalized(address)
        } else {
            settings.senderAddress = nil
        }
        guard !settings.languages.isEmpty, settings.languages.count <= 30 else {
            throw ServiceError.invalidArgument("languages needs from 1 to 30 language tags, the first the default")
        }
        for language in settings.languages where !isLanguageTag(language) {
            throw ServiceError.invalidArgument("'\(language)' is not a language tag (en, fr, pt-BR, ...)")
        }
        for address in settings.redirectURLs {
            guard let url = URLComponents(string: address), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false,
                url.query == nil, url.fragment == nil
            else {
                throw ServiceError.invalidArgument("redirect address '\(address)' must be an http or https URL without a query, such as https://app.example.com/")
            }
        }
        settings.passkeyRelyingPartyID = settings.passkeyRelyingPartyID.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .flatMap { $0.isEmpty ? nil : $0 }
        if let id = settings.passkeyRelyingPartyID, !isDomainName(id) {
            throw ServiceError.invalidArgument("passkeyRelyingPartyID '\(id)' must be a domain name such as example.com (no scheme, port or path)")
        }
        for origin in settings.passkeyOrigins where !isPasskeyOrigin(origin) {
            throw ServiceError.invalidArgument(
                "passkey origin '\(origin)' must be a scheme and host without a path (https://app.example.com) or an app origin (android:apk-key-hash:…)"
            )
        }
        for appID in settings.passkeyAppleAppIDs where !isAppleAppID(appID) {
            throw ServiceError.invalidArgument("Apple app ID '\(appID)' must be the team ID and the bundle ID, such as ABCDE12345.com.example.Notes")
        }
        settings.passkeyAndroidApps = try settings.passkeyAndroidApps.map(validatedAndroidApp)
        for clientID in settings.appleClientIDs where !isBundleID(clientID) {
            throw ServiceError.invalidArgument("Apple client ID '\(clientID)' must be a bundle ID or Services ID, such as com.example.Notes")
        }
        settings.appleTeamID = settings.appleTeamID.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        settings.appleKeyID = settings.appleKeyID.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        for (field, value) in [("appleTeamID", settings.appleTeamID), ("appleKeyID", settings.appleKeyID)] {
            if let value, !(value.count == 10 && value.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }) {
                throw ServiceError.invalidArgument("\(field) '\(value)' must be the 10 capital letters and digits Apple shows, such as ABCDE12345")
            }
        }
        var names: Set<String> = []
        for provider in settings.openIDProviders {
            try validate(provider)
            guard names.insert(provider.name).inserted else { throw ServiceError.invalidArgument("two OpenID providers are named \(provider.name)") }
        }
        if let source = settings.cloudKitSource {
            guard SecureEndpoint.isAllowed(source.url) else {
                throw ServiceError.invalidArgument("cloudKitSource.url '\(source.url)' must be an https URL (http only on loopback), such as https://api.apple-cloudkit.com")
            }
            guard !source.containerID.isEmpty, ["development", "production"].contains(source.environment), !source.apiToken.isEmpty,
                source.apiToken.count <= 256
            else {
                throw ServiceError.invalidArgument("cloudKitSource needs the source's containerID, environment (development or production) and an apiToken")
            }
        }
        guard (0...3650).contains(settings.anonymousAccountLifetimeDays) else {
            throw ServiceError.invalidArgument("anonymousAccountLifetimeDays must be from 0 (kept) to 3650")
        }
        return settings
    }

    /// Names a provider may not take: the other ways in.
    package static let reservedProviderNames: Set<String> = ["apple", "password", "passkey", "email"]

    /// A provider's name (1 to 32 lowercase letters, digits and dashes, not a reserved one), an `https` issuer
    /// (`http` only on loopback) without a query, and at least one client ID.
    package static func validate(_ provider: AccountSettings.OpenIDProvider) throws {
        guard (1...32).contains(provider.name.count), provider.name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }),
            !reservedProviderNames.contains(provider.name)
        else {
            throw ServiceError.invalidArgument("OpenID provider name '\(provider.name)' must be 1 to 32 lowercase letters, digits and dashes, and not \(reservedProviderNames.sorted().joined(separator: ", "))")
        }
        guard SecureEndpoint.isAllowed(provider.issuer) else {
            throw ServiceError.invalidArgument("OpenID provider \(provider.name): issuer '\(provider.issuer)' must be an https URL (http only on loopback)")
        }
        guard !provider.clientIDs.isEmpty, provider.clientIDs.allSatisfy({ !$0.isEmpty && $0.count <= 255 }) else {
            throw ServiceError.invalidArgument("OpenID provider \(provider.name) needs the client IDs its ID tokens are for")
        }
    }

    /// `com.example.Notes`: labels of letters, digits and dashes, separated by dots.
    package static func isBundleID(_ id: String) -> Bool {
        let labels = id.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && id.count <= 155 && labels.allSatisfy { label in
            !label.isEmpty && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// `ABCDE12345.com.example.Notes`: a team ID of 10 capitals and digits, a dot, and a bundle ID.
    package static func isAppleAppID(_ appID: String) -> Bool {
        let parts = appID.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else { return false }
        return parts[1].split(separator: ".", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// The app with its fingerprints as `keytool` prints them (uppercase, colon-separated), or a `BAD_REQUEST`.
    package static func validatedAndroidApp(_ app: AccountSettings.AndroidApp) throws -> AccountSettings.AndroidApp {
        let segments = app.packageName.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count >= 2, segments.allSatisfy({ segment in
            segment.first?.isLetter == true && segment.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
        }) else {
            throw ServiceError.invalidArgument("Android package name '\(app.packageName)' must be like com.example.notes")
        }
        guard !app.sha256CertFingerprints.isEmpty else {
            throw ServiceError.invalidArgument("Android app \(app.packageName) needs the SHA-256 fingerprint of its signing certificate")
        }
        let fingerprints = try app.sha256CertFingerprints.map { fingerprint in
            guard let bytes = certificateFingerprint(fingerprint) else {
                throw ServiceError.invalidArgument("'\(fingerprint)' is not a SHA-256 fingerprint (32 bytes in hexadecimal, such as AB:CD:…)")
            }
            return bytes.map { String(format: "%02X", $0) }.joined(separator: ":")
        }
        return AccountSettings.AndroidApp(packageName: app.packageName, sha256CertFingerprints: fingerprints)
    }

    /// The 32 bytes of a SHA-256 fingerprint written in hexadecimal, with or without colons.
    package static func certificateFingerprint(_ text: String) -> [UInt8]? {
        let digits = Array(text.filter { $0 != ":" })
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(digits[index..<index + 2]), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// `example.com`, `login.example.co.uk`, `localhost`: labels of letters, digits and dashes.
    package static func isDomainName(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return name.count <= 253 && labels.allSatisfy { label in
            (1...63).contains(label.count) && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
                && label.first != "-" && label.last != "-"
        }
    }

    /// A web origin (`https://host[:port]`, exactly as browsers write it) or an app's (`android:apk-key-hash:…`).
    package static func isPasskeyOrigin(_ origin: String) -> Bool {
        if origin.hasPrefix("android:apk-key-hash:") { return origin.count > 21 }
        guard let url = URLComponents(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme), let host = url.host,
            !host.isEmpty, url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
        else { return false }
        return origin == "\(scheme)://\(host)" + (url.port.map { ":\($0)" } ?? "")
    }

    /// `en`, `fr`, `pt-BR`, `zh-Hant-TW`: a primary language of 2 or 3 letters and subtags of 2 to 8 letters or digits.
    package static func isLanguageTag(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    /// The template, or a `BAD_REQUEST`: a known kind, a language tag, a subject and text within their limits,
    /// known placeholders only, and the code in the text.
    package static func validatedTemplate(_ template: MailTemplate) throws -> MailTemplate {
        guard MailKind(rawValue: template.kind) != nil else {
            throw ServiceError.invalidArgument("unknown mail kind '\(template.kind)'; kinds are \(MailKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard isLanguageTag(template.language) else { throw ServiceError.invalidArgument("'\(template.language)' is not a language tag") }
        let subject = template.subject.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !subject.isEmpty, subject.count <= 200 else { throw ServiceError.invalidArgument("subject needs from 1 to 200 characters") }
        guard !template.textBody.isEmpty, template.textBody.utf8.count <= 20_000 else { throw ServiceError.invalidArgument("text needs from 1 to 20,000 bytes") }
        if let html = template.htmlBody, html.utf8.count > 100_000 { throw ServiceError.invalidArgument("html has more than 100,000 bytes") }
        let used = [subject, template.textBody, template.htmlBody ?? ""].reduce(into: Set<String>()) { $0.formUnion(MailRendering.placeholders(in: $1)) }
        let unknown = used.subtracting(MailKind.placeholders)
        guard unknown.isEmpty else {
            throw ServiceError.invalidArgument(
                "unknown placeholder(s) \(unknown.sorted().map { "{{\($0)}}" }.joined(separator: ", ")); templates may use \(MailKind.placeholders.sorted().map { "{{\($0)}}" }.joined(separator: ", "))"
            )
        }
        guard MailRendering.placeholders(in: template.textBody).contains("code") else {
            throw ServiceError.invalidArgument("the text must show the code ({{code}})")
        }
        var template = template
        template.subject = subject
        return template
    }
}
