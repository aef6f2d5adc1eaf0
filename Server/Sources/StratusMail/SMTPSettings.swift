import Foundation

/// How to reach an SMTP server, read from a URL:
///
/// - `smtp://USER:PASSWORD@HOST:PORT` (port 587 by default) upgrades to TLS with STARTTLS when the server offers
///   it; `?tls=starttls` requires it, `?tls=none` never uses it.
/// - `smtps://USER:PASSWORD@HOST:PORT` (port 465 by default) speaks TLS from the first byte.
/// - `?ca=/path/to/ca.pem` trusts that certificate authority (a private one) besides the system's.
///
/// The user and password are optional (percent-encoded in the URL); with them, the client authenticates with
/// AUTH PLAIN or LOGIN, and only over TLS unless the server is on the loopback interface or `tls=none` says so.
public struct SMTPSettings: Sendable, Hashable {
    public enum Security: String, Sendable, Hashable {
        /// Plain text throughout.
        case none
        /// STARTTLS when the server offers it, plain text otherwise.
        case startTLSWhenOffered
        /// STARTTLS, or nothing is sent.
        case startTLS
        /// TLS from the first byte (`smtps`).
        case implicitTLS
    }

    public var host: String
    public var port: Int
    public var security: Security
    public var username: String?
    public var password: String?
    /// A PEM file of certificate authorities trusted besides the system's.
    public var certificateAuthorityFile: String?
    /// Seconds one message may take, from connecting to the server's last reply.
    public var timeout: Double = 30

    public init(
        host: String, port: Int, security: Security = .startTLSWhenOffered, username: String? = nil, password: String? = nil,
        certificateAuthorityFile: String? = nil
    ) {
        self.host = host
        self.port = port
        self.security = security
        self.username = username
        self.password = password
        self.certificateAuthorityFile = certificateAuthorityFile
    }

    /// Settings from an `smtp://` or `smtps://` URL.
    /// - Throws: ``MailError`` (permanent) naming what is wrong, never echoing the password.
    public init(url text: String) throws(MailError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "smtp" || scheme == "smtps", let host = components.host, !host.isEmpty
        else {
            throw MailError("the SMTP URL must look like smtp://USER:PASSWORD@HOST:PORT or smtps://...", permanent: true)
        }
        self.host = host
        port = components.port ?? (scheme == "smtps" ? 465 : 587)
        username = components.percentEncodedUser.flatMap { $0.removingPercentEncoding }.flatMap { $0.isEmpty ? nil : $0 }
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        security = scheme == "smtps" ? .implicitTLS : .startTLSWhenOffered
        for item in components.queryItems ?? [] {
            switch (item.name, item.value ?? "") {
            case ("tls", "starttls") where scheme == "smtp": security = .startTLS
            case ("tls", "none") where scheme == "smtp": security = .none
            case ("tls", "implicit"): security = .implicitTLS
            case ("ca", let path) where !path.isEmpty: certificateAuthorityFile = path
            default: throw MailError("the SMTP URL has an unknown option '\(item.name)=\(item.value ?? "")'", permanent: true)
            }
        }
    }

    /// The URL without its password, for logs and the console.
    public var redacted: String {
        let scheme = security == .implicitTLS ? "smtps" : "smtp"
        let user = username.map { ($0.addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? $0) + ":***@" } ?? ""
        return "\(scheme)://\(user)\(host):\(port)"
    }

    /// Whether the server is on this machine, where a password in plain text crosses no network.
    var isLoopback: Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
    }
}
