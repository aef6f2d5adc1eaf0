import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Account mail from a real `stratus serve` process through a real SMTP server.
@Suite struct MailEndToEndTests {
    @Test("mail queued by a sign-up survives a SIGKILL of the server and goes out once an SMTP server is configured")
    func queuedMailSurvivesACrash() async throws {
        guard let sink = try await MailSink.start(["--auth", "mailer:secret"]) else { return }
        defer { sink.stop() }
        let folder = try TestFolder("stratus-mail-e2e")
        defer { folder.remove() }

        let first = ServerProcess(dataFolder: folder.path, arguments: ["--smtp-from", "notes@example.com"])
        try await first.start()
        let token = try await first.createContainer("iCloud.com.example.Mail")
        let (status, answer) = try await first.send(
            "POST", "/auth/1/iCloud.com.example.Mail/development/signup?ckAPIToken=\(token)",
            body: #"{"emailAddress":"alice@example.com","password":"correct horse"}"#
        )
        #expect(status == 201, "\(answer)")
        first.kill()

        let second = ServerProcess(
            dataFolder: folder.path, arguments: ["--smtp-url", sink.url(credentials: "mailer:secret"), "--smtp-from", "notes@example.com"]
        )
        try await second.start()
        defer { second.stop() }
        let mail = try await sink.waitForMessages(count: 1)
        #expect(mail.count == 1 && mail[0].rcptTos == ["alice@example.com"] && mail[0].authenticated == "mailer", "\(second.recentOutput)")
        #expect(mail[0].from.contains("<notes@example.com>"))
        #expect(mail[0].text?.contains("/account/1/iCloud.com.example.Mail/development/link?token=") == true)
        #expect(!second.recentOutput.contains("secret") && !second.recentLog.contains("secret"), "the SMTP password is never logged")
    }

    @Test("with no --smtp-from, mail goes out from no-reply@[127.0.0.1], a valid sender, and the log says how to choose one")
    func derivedSender() async throws {
        guard let sink = try await MailSink.start([]) else { return }
        defer { sink.stop() }
        let folder = try TestFolder("stratus-mail-sender")
        defer { folder.remove() }
        let server = ServerProcess(dataFolder: folder.path, arguments: ["--smtp-url", sink.url()])
        try await server.start()
        defer { server.stop() }
        let token = try await server.createContainer("iCloud.com.example.Mail")
        let (status, answer) = try await server.send(
            "POST", "/auth/1/iCloud.com.example.Mail/development/signup?ckAPIToken=\(token)",
            body: #"{"emailAddress":"alice@example.com","password":"correct horse"}"#
        )
        #expect(status == 201, "\(answer)")
        let mail = try await sink.waitForMessages(count: 1)
        #expect(mail.first?.from.contains("<no-reply@[127.0.0.1]>") == true, "\(mail.first?.from ?? "no mail")")
        #expect(server.recentLog.contains("set --smtp-from"), "\(server.recentLog)")
    }
}
