import Foundation
import StratusMail
import StratusStoreTesting
import Testing

/// The SMTP client against a real SMTP server (aiosmtpd), which reads what it sent with Python's own MIME parser.
@Suite struct SMTPClientTests {
    static func message(to recipient: String = "alice@example.com", html: String? = nil) -> MailMessage {
        MailMessage(
            fromAddress: "app@example.com", fromName: "Notes — Équipe", to: recipient, subject: "Réinitialisez votre mot de passe, s'il vous plaît, avant demain",
            text: "Your code: 123456\n.\n.leading dot\nÀ bientôt", html: html
        )
    }

    /// Settings for a local test server, with the time a loaded machine needs: a Python peer on two busy cores may
    /// take more than the default 30 s to answer an exchange.
    static func settings(_ url: String) throws -> SMTPSettings {
        var settings = try SMTPSettings(url: url)
        settings.timeout = 120
        return settings
    }

    @Test("a message with a plain and an HTML part arrives whole, with its non-ASCII headers, after AUTH")
    func plainAndHTML() async throws {
        guard let sink = try await MailSink.start(["--auth", "mailer:s3cret pass"]) else { return }
        defer { sink.stop() }
        let client = try SMTPClient(settings: Self.settings(sink.url(credentials: "mailer:s3cret%20pass")))
        try await client.send(Self.message(html: "<p>Your code: <b>123456</b></p>"))
        let received = try await sink.waitForMessages(count: 1)
        let mail = try #require(received.first)
        #expect(mail.mailFrom == "app@example.com" && mail.rcptTos == ["alice@example.com"])
        #expect(mail.authenticated == "mailer")
        #expect(mail.subject == "Réinitialisez votre mot de passe, s'il vous plaît, avant demain")
        #expect(mail.from.contains("Notes — Équipe") && mail.from.contains("<app@example.com>"), "\(mail.from)")
        #expect(mail.text?.replacingOccurrences(of: "\r\n", with: "\n") == "Your code: 123456\n.\n.leading dot\nÀ bientôt")
        #expect(mail.html?.contains("<b>123456</b>") == true)
        #expect(mail.messageID.hasSuffix("@example.com>"))
    }

    @Test("STARTTLS is used when the settings require it, and implicit TLS with smtps, trusting a private authority")
    func tls() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-smtp-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let certificate = folder + "/cert.pem"
        let key = folder + "/key.pem"
        let made = try await ChildProcess.run("openssl", [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost",
        ])
        #expect(made.status == 0, "\(made.output)")

        guard let starttls = try await MailSink.start(["--starttls", certificate, key, "--auth", "u:p"]) else { return }
        defer { starttls.stop() }
        let upgraded = try SMTPClient(settings: Self.settings(starttls.url(credentials: "u:p", host: "localhost", options: "tls=starttls&ca=\(certificate)")))
        try await upgraded.send(Self.message())
        #expect(try await starttls.waitForMessages(count: 1).first?.tls == true)

        // Without the authority, the server's certificate is not trusted and nothing is sent.
        let untrusting = try SMTPClient(settings: Self.settings(starttls.url(credentials: "u:p", host: "localhost", options: "tls=starttls")))
        await #expect(throws: MailError.self) { try await untrusting.send(Self.message()) }
        #expect(try starttls.messages().count == 1)

        guard let implicit = try await MailSink.start(["--implicit-tls", certificate, key]) else { return }
        defer { implicit.stop() }
        let wrapped = try SMTPClient(settings: Self.settings(implicit.url(scheme: "smtps", host: "localhost", options: "ca=\(certificate)")))
        try await wrapped.send(Self.message())
        #expect(try await implicit.waitForMessages(count: 1).first?.tls == true)
    }

    @Test("a 4xx reply or a server that is down is temporary; a wrong password is permanent")
    func failures() async throws {
        guard let sink = try await MailSink.start(["--refuse", "1", "--auth", "u:p"]) else { return }
        defer { sink.stop() }
        let client = try SMTPClient(settings: Self.settings(sink.url(credentials: "u:p")))
        do {
            try await client.send(Self.message())
            Issue.record("the refused message was reported sent")
        } catch {
            #expect(!error.isPermanent && error.message.contains("451"), "\(error)")
        }
        try await client.send(Self.message())
        #expect(try await sink.waitForMessages(count: 1).count == 1)

        let wrongPassword = try SMTPClient(settings: Self.settings(sink.url(credentials: "u:wrong")))
        do {
            try await wrongPassword.send(Self.message())
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(error.isPermanent && error.message.contains("user name or password") && !error.message.contains("wrong"), "\(error)")
        }

        let reservation = try Loopback.reservePort()
        let closedPort = reservation.port
        reservation.release()
        let down = try SMTPClient(settings: Self.settings("smtp://127.0.0.1:\(closedPort)"))
        do {
            try await down.send(Self.message())
            Issue.record("a message to a server that is down was reported sent")
        } catch {
            #expect(!error.isPermanent, "\(error)")
        }
    }

    @Test("SMTP URLs are read with their options, and their passwords never shown")
    func settings() throws {
        let plain = try SMTPSettings(url: "smtp://user%40example.com:p%40ss@mail.example.com")
        #expect(plain.host == "mail.example.com" && plain.port == 587 && plain.security == .startTLSWhenOffered)
        #expect(plain.username == "user@example.com" && plain.password == "p@ss")
        #expect(plain.redacted == "smtp://user%40example.com:***@mail.example.com:587")
        let implicit = try SMTPSettings(url: "smtps://mail.example.com")
        #expect(implicit.port == 465 && implicit.security == .implicitTLS && implicit.username == nil)
        #expect(try SMTPSettings(url: "smtp://h:25?tls=none").security == SMTPSettings.Security.none)
        #expect(try SMTPSettings(url: "smtp://h:25?tls=starttls&ca=/tmp/ca.pem").certificateAuthorityFile == "/tmp/ca.pem")
        #expect(throws: MailError.self) { try SMTPSettings(url: "http://h") }
        #expect(throws: MailError.self) { try SMTPSettings(url: "smtp://h?tls=maybe") }
    }
}
