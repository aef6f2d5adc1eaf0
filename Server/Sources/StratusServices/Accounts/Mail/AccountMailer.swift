import Crypto
import Foundation
import StratusModel
import StratusStore

/// Makes the single-use codes of account flows and queues the mail that carries them.
///
/// A code is six digits to type and a token for a link, both random; the store keeps only their HMAC-SHA256
/// under a server secret (``hash(_:)``), so a copy of the database reveals neither, and a six-digit code cannot be
/// found from its hash without the key.
package struct AccountMailer: Sendable {
    package let store: any Store
    package let configuration: ServerConfiguration
    package let key: Data
    /// How long a code works, in milliseconds: 30 minutes.
    package static let codeLifetime: Int64 = 30 * 60 * 1000
    /// Wrong codes a code survives.
    package static let allowedWrongCodes = 5

    /// The keyed hash the store keeps of a code or link token.
    package func hash(_ text: String) -> String {
        HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: key)).map { String(format: "%02x", $0) }.joined()
    }

    /// Makes a code for `purpose`, stores it and queues its mail to `recipient` (the account's address, or the new
    /// one for a change of address), in one transaction.
    package func send(
        _ purpose: AccountCode.Purpose, for account: Account, to recipient: String, container: ContainerInfo, environment: Environment,
        languages: [String], baseURL: String
    ) async throws {
        var generator = SystemRandomNumberGenerator()
        let code = String(format: "%06d", Int.random(in: 0...999_999, using: &generator))
        let token = Tokens.randomBase64URL(bytes: 32)
        let now = ServerClock.now()
        let stored = AccountCode(
            id: Tokens.randomHex(bytes: 16), containerID: container.id, userRecordName: account.userRecordName, purpose: purpose,
            codeHash: hash(code), linkHash: hash(token), newEmailAddress: purpose == .changeEmail ? recipient : nil, createdAt: now,
            expiresAt: now + Self.codeLifetime
        )
        let link = "\(baseURL)/account/1/\(container.id)/\(environment.rawValue)/link?token=\(token)"
        let mail = try await compose(
            MailKind(purpose), to: recipient, container: container, environment: environment, languages: languages, baseURL: baseURL,
            values: ["code": code, "link": link, "email": recipient, "minutes": "\(Self.codeLifetime / 60_000)"]
        )
        try await store.createAccountCode(stored, mail: mail)
    }

    /// The message of `kind` for `recipient`, in the container's template for the best language, else the built-in one.
    package func compose(
        _ kind: MailKind, to recipient: String, container: ContainerInfo, environment: Environment, languages: [String], baseURL: String,
        values: [String: String]
    ) async throws -> OutgoingMail {
        let settings = container.accountSettings
        let language = settings.language(for: languages)
        let templates = try await store.mailTemplates(containerID: container.id, environment: environment).filter { $0.kind == kind.rawValue }
        let template = templates.first { $0.language == language }
        let appName = settings.displayName(containerID: container.id)
        var filled = values
        filled["appName"] = appName
        let subject = MailRendering.fill(template?.subject ?? kind.builtIn.subject, filled)
        let text = MailRendering.fill(template?.textBody ?? kind.builtIn.text, filled)
        let html = template?.htmlBody.map { MailRendering.fill($0, filled, html: true) }
        let host = URLComponents(string: baseURL)?.host ?? "localhost"
        return OutgoingMail(
            containerID: container.id, environment: environment, kind: kind.rawValue, language: template?.language ?? "en",
            recipient: recipient, senderAddress: settings.senderAddress ?? configuration.mailFrom ?? Self.derivedSender(host: host),
            senderName: settings.senderName ?? appName, subject: subject, textBody: text, htmlBody: html
        )
    }

    /// The sender when none is set (`--smtp-from`, the container's sender address): `no-reply@` the host the
    /// request came to, an IP address written as RFC 5321's address literal (`no-reply@[127.0.0.1]`,
    /// `no-reply@[IPv6:::1]`), which mail servers accept where a bare address is not a domain.
    package static func derivedSender(host: String) -> String {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if bare.contains(":") { return "no-reply@[IPv6:\(bare)]" }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ UInt8($0) != nil }) { return "no-reply@[\(bare)]" }
        return "no-reply@\(bare)"
    }

    package init(store: any Store, configuration: ServerConfiguration, key: Data) {
        self.store = store
        self.configuration = configuration
        self.key = key
    }
}
