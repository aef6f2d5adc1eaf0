import Foundation
import NIOCore
import NIOSSL

/// Sends messages to one SMTP server (RFC 5321): one connection per message, STARTTLS or implicit TLS as the
/// settings say, AUTH PLAIN or LOGIN, and a deadline on the whole exchange.
///
/// ```swift
/// let client = try SMTPClient(settings: SMTPSettings(url: "smtp://user:secret@mail.example.com:587"))
/// try await client.send(MailMessage(fromAddress: "app@example.com", fromName: "App", to: "a@example.com",
///                                   subject: "Hello", text: "Hi!"))
/// ```
public struct SMTPClient: Sendable {
    public let settings: SMTPSettings
    private let tls: NIOSSLContext?
    /// The name this client gives itself in `EHLO`.
    public var clientName = "stratus.localhost"

    /// - Throws: ``MailError`` when the TLS settings cannot be used (an unreadable certificate authority file).
    public init(settings: SMTPSettings) throws(MailError) {
        self.settings = settings
        guard settings.security != .none else {
            tls = nil
            return
        }
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let file = settings.certificateAuthorityFile {
            do {
                configuration.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
            } catch {
                throw MailError("the SMTP certificate authority file \(file) cannot be read: \(error)", permanent: true)
            }
        }
        do {
            tls = try NIOSSLContext(configuration: configuration)
        } catch {
            throw MailError("TLS cannot be set up for SMTP: \(error)", permanent: true)
        }
    }

    /// Sends one message; returns once the server accepted it (`250` after the data).
    /// - Throws: ``MailError``: permanent for `5xx` replies and settings that cannot work, temporary otherwise.
    public func send(_ message: MailMessage) async throws(MailError) {
        let deadline = settings.timeout
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await self.converse(message) }
                group.addTask {
                    try await Task.sleep(for: .seconds(deadline))
                    throw MailError("the SMTP server did not finish within \(Int(deadline)) s", permanent: false)
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch let error as MailError {
            throw error
        } catch is CancellationError {
            throw MailError("sending was cancelled", permanent: false)
        } catch {
            throw MailError("the SMTP server \(settings.host):\(settings.port) cannot be reached: \(error)", permanent: false)
        }
    }

    private func converse(_ message: MailMessage) async throws {
        let implicit = settings.security == .implicitTLS ? tls : nil
        try await SMTPConnection.withConnection(host: settings.host, port: settings.port, tls: implicit, connectTimeout: .seconds(10)) {
            connection in
            try Self.expect(try await connection.reply(), 220, "greeting")
            var extensions = try await hello(&connection)
            var secured = settings.security == .implicitTLS
            if settings.security == .startTLS || settings.security == .startTLSWhenOffered {
                if extensions.keys.contains("STARTTLS"), let tls {
                    try await connection.send("STARTTLS")
                    try Self.expect(try await connection.reply(), 220, "STARTTLS")
                    try await connection.startTLS(tls, host: settings.host)
                    secured = true
                    extensions = try await hello(&connection)
                } else if settings.security == .startTLS {
                    throw MailError("the SMTP server does not offer STARTTLS, which the settings require (tls=starttls)", permanent: true)
                }
            }
            if let username = settings.username {
                guard secured || settings.isLoopback || settings.security == .none else {
                    throw MailError("the SMTP server offers no TLS; the password is not sent in plain text (add ?tls=none to allow it)", permanent: true)
                }
                try await authenticate(&connection, username: username, password: settings.password ?? "", mechanisms: extensions["AUTH"] ?? [])
            }
            try await connection.send("MAIL FROM:<\(message.fromAddress)>")
            try Self.expect(try await connection.reply(), 250, "MAIL FROM")
            try await connection.send("RCPT TO:<\(message.to)>")
            try Self.expect(try await connection.reply(), 250, "RCPT TO", alsoAccepting: 251)
            try await connection.send("DATA")
            try Self.expect(try await connection.reply(), 354, "DATA")
            try await connection.sendRaw(message.rendered() + ".\r\n")
            try Self.expect(try await connection.reply(), 250, "the message")
            try? await connection.send("QUIT")
        }
    }

    /// Sends `EHLO` and returns the extensions the server announced, by keyword, with their parameters.
    private func hello(_ connection: inout SMTPConnection) async throws -> [String: [String]] {
        try await connection.send("EHLO \(clientName)")
        let reply = try await connection.reply()
        try Self.expect(reply, 250, "EHLO")
        var extensions: [String: [String]] = [:]
        for line in reply.lines.dropFirst() {
            let words = line.split(separator: " ").map(String.init)
            guard let keyword = words.first?.uppercased() else { continue }
            extensions[keyword] = words.dropFirst().map { $0.uppercased() }
        }
        return extensions
    }

    private func authenticate(_ connection: inout SMTPConnection, username: String, password: String, mechanisms: [String]) async throws {
        if mechanisms.contains("PLAIN") || mechanisms.isEmpty {
            let credentials = Data(([0] + Array(username.utf8) + [0] + Array(password.utf8))).base64EncodedString()
            try await connection.send("AUTH PLAIN \(credentials)")
            try Self.expect(try await connection.reply(), 235, "AUTH PLAIN", authentication: true)
        } else if mechanisms.contains("LOGIN") {
            try await connection.send("AUTH LOGIN")
            try Self.expect(try await connection.reply(), 334, "AUTH LOGIN")
            try await connection.send(Data(username.utf8).base64EncodedString())
            try Self.expect(try await connection.reply(), 334, "AUTH LOGIN")
            try await connection.send(Data(password.utf8).base64EncodedString())
            try Self.expect(try await connection.reply(), 235, "AUTH LOGIN", authentication: true)
        } else {
            throw MailError("the SMTP server offers neither AUTH PLAIN nor LOGIN (it offers \(mechanisms.joined(separator: ", ")))", permanent: true)
        }
    }

    /// Throws unless the reply has the expected code: a `5xx` is permanent (but a refused login, which settings
    /// fix, is too), anything else temporary.
    private static func expect(_ reply: SMTPConnection.Reply, _ code: Int, _ step: String, alsoAccepting other: Int? = nil, authentication: Bool = false) throws {
        guard reply.code != code, reply.code != other else { return }
        let permanent = (500..<600).contains(reply.code)
        let what = authentication ? "the SMTP server refused the user name or password" : "the SMTP server refused \(step)"
        throw MailError("\(what): \(reply.text.prefix(300))", permanent: permanent)
    }
}
