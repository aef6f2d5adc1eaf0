import Foundation
import HTTPTypes
import StratusMail
import StratusModel
import StratusServer
import StratusServices
import StratusStoreTesting

/// A test server that sends its mail to a real SMTP server, and helpers to read the codes and links it mailed.
enum AccountMailSupport {
    /// Runs `body` against a server whose mail goes to a fresh SMTP sink (retries after a second); does not run
    /// (outside CI) when aiosmtpd is missing.
    static func run(
        sinkArguments: [String] = [], configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: @escaping @Sendable (TestClient, MailSink) async throws -> Void
    ) async throws {
        guard let sink = try await MailSink.start(sinkArguments) else { return }
        defer { sink.stop() }
        let settings = try SMTPSettings(url: sink.url())
        try await TestServer.run(configure: { configuration in
            configuration.smtp = settings
            configuration.mailRetryDelays = [1, 1, 1]
            configure(&configuration)
        }) { client in
            try await body(client, sink)
        }
    }
}

extension MailSink.Message {
    /// The six-digit code the message shows.
    var code: String? {
        text?.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .first { $0.count == 6 && $0.allSatisfy(\.isNumber) }
    }

    /// The token of the message's link.
    var linkToken: String? {
        guard let text, let range = text.range(of: "token=") else { return nil }
        return String(text[range.upperBound...].prefix { !$0.isWhitespace })
    }
}

extension TestClient {
    /// `POST /auth/1/{container}/development/{path}` with a JSON body, as `session` when given.
    func auth(_ path: String, _ body: String, token: String, session: String? = nil, headers: HTTPFields = [:]) async throws -> Reply {
        var query = "ckAPIToken=\(token)"
        if let session { query += "&ckWebAuthToken=" + session.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! }
        return try await send(.post, "/auth/1/\(TestServer.container)/development/\(path)?\(query)", body: body, headers: headers)
    }

    /// `GET /auth/1/{container}/development/{path}` as `session`.
    func authGet(_ path: String, token: String, session: String) async throws -> Reply {
        let encoded = session.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return try await send(.get, "/auth/1/\(TestServer.container)/development/\(path)?ckAPIToken=\(token)&ckWebAuthToken=\(encoded)")
    }

    /// Whether `session` is still accepted (`users/caller`).
    func isSignedIn(_ session: String, token: String) async throws -> Bool {
        let encoded = session.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let reply = try await send(.get, "/database/1/\(TestServer.container)/development/public/users/caller?ckAPIToken=\(token)&ckWebAuthToken=\(encoded)")
        return reply.status == 200
    }
}

extension Reply {
    var string: (String) -> String? {
        { key in if case .string(let value)? = self[key] { value } else { nil } }
    }
}
