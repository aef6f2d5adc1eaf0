import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Admin endpoints for a container's accounts: their settings, the users themselves (disable, enable, end
/// sessions, send a reset, remove second factors), the mail templates and the mail sent.
extension AdminController {
    func registerAccountRoutes(on group: RouterGroup<StratusRequestContext>) {
        group.get(":container/accounts/settings", .viewer, use: accountSettings)
        group.put(":container/accounts/settings", .owner, use: setAccountSettings)
        group.get(":container/accounts/sign-in-methods", .viewer, use: signInMethodCounts)
        group.post(":container/:environment/users/:user/disable", .developer, use: disableUser)
        group.post(":container/:environment/users/:user/enable", .developer, use: enableUser)
        group.post(":container/:environment/users/:user/sessions/end", .developer, use: endUserSessions)
        group.post(":container/:environment/users/:user/reset", .developer, use: sendUserReset)
        group.post(":container/:environment/users/:user/second-factors/remove", .developer, use: removeSecondFactors)
        group.delete(":container/:environment/users/:user", .owner, use: deleteUser)
        group.get(":container/:environment/mail/templates", .viewer, use: mailTemplates)
        group.put(":container/:environment/mail/templates/:kind/:language", .developer, use: saveMailTemplate)
        group.delete(":container/:environment/mail/templates/:kind/:language", .owner, use: deleteMailTemplate)
        group.post(":container/:environment/mail/preview", .developer, use: previewMail)
        group.get(":container/mail", .viewer, use: recentMail)
    }

    /// `GET /admin/1/{container}/accounts/settings`: the container's ``AccountSettings``.
    @Sendable func accountSettings(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        return try JSONResponse.make(encoding: container.accountSettings)
    }

    /// `PUT /admin/1/{container}/accounts/settings` with ``AccountSettings``: replaces them, on every node at once.
    @Sendable func setAccountSettings(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let settings = try AccountSettingsRules.validated(try await RequestBody.decode(AccountSettings.self, from: request, limit: RequestLimits.jsonBody))
        try await server.store.setAccountSettings(settings, containerID: containerID)
        return try JSONResponse.make(encoding: settings)
    }

    /// `GET /admin/1/{container}/accounts/sign-in-methods`: how many accounts use each way in (`password`,
    /// `passkey`, `anonymous`, `apple`, each OpenID provider by name), as `{"methods": {name: count}}`.
    @Sendable func signInMethodCounts(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let counts = try await server.store.signInMethodCounts(containerID: container.id)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("methods")
            writer.beginObject()
            for (method, users) in counts.sorted(by: { $0.key < $1.key }) {
                writer.key(method)
                writer.integer(Int64(users))
            }
            writer.endObject()
        })
    }

    // MARK: - Users

    /// `POST .../users/{user}/disable`: the user is signed out everywhere and cannot sign in until enabled.
    @Sendable func disableUser(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await changeUser(request, context, .disabled(true))
    }

    /// `POST .../users/{user}/enable`.
    @Sendable func enableUser(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await changeUser(request, context, .disabled(false))
    }

    private func changeUser(_ request: Request, _ context: StratusRequestContext, _ change: AccountChange) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let account = try await server.store.changeAccount(containerID: containerID, userRecordName: try context.parameters.require("user"), change: change)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("disabled")
            writer.bool(account.isDisabled)
            writer.key("userRecordName")
            writer.string(account.userRecordName)
        })
    }

    /// `POST .../users/{user}/sessions/end`: signs the user out everywhere. Answers `{ended}`.
    @Sendable func endUserSessions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let user = try context.parameters.require("user")
        guard try await server.store.account(containerID: containerID, userRecordName: user) != nil else { throw APIError(.notFound, "no such user") }
        let ended = try await server.store.endSessions(containerID: containerID, userRecordName: user, keeping: nil)
        return try JSONResponse.make(encoding: EndSessionsResponse(ended: ended))
    }

    /// `POST .../users/{user}/reset`: mails the user a password reset code and link. Answers `202
    /// {smtpConfigured}`: without an SMTP server (`--smtp-url`) the message waits in the queue until there is one.
    @Sendable func sendUserReset(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        guard let account = try await server.store.account(containerID: container.id, userRecordName: try context.parameters.require("user")),
            !account.isDeveloper
        else { throw APIError(.notFound, "no such user") }
        guard let email = account.emailAddress else { throw APIError.badRequest("the user has no email address to mail a reset to") }
        // An operator's reset is a message like the others: it counts toward the address's limit.
        let client = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        try await server.mailThrottle.admit(recipient: container.id + "|" + email, client: client)
        try await server.mailer.send(
            .resetPassword, for: account, to: email, container: container, environment: environment, languages: [],
            baseURL: DatabaseCall.baseURL(of: request, server)
        )
        return try JSONResponse.make(encoding: PasswordResetResponse(smtpConfigured: server.configuration.smtp != nil), status: .accepted)
    }

    /// `POST .../users/{user}/second-factors/remove`: turns the user's authenticator app off and removes their
    /// recovery codes and passkeys, signing them out everywhere: for a user who lost their devices. Answers
    /// `{passkeys: 0, totpEnabled: false, userRecordName}`.
    @Sendable func removeSecondFactors(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        let account = try await server.store.changeAccount(
            containerID: containerID, userRecordName: try context.parameters.require("user"), change: .removeSecondFactors
        )
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("passkeys")
            writer.integer(Int64(account.passkeyCount))
            writer.key("totpEnabled")
            writer.bool(account.secondFactor.isTOTPEnabled)
            writer.key("userRecordName")
            writer.string(account.userRecordName)
        })
    }

    /// `DELETE .../users/{user}`: deletes the user as they could themselves: at once, for good, on every node.
    @Sendable func deleteUser(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        try await AdminOperations.deleteUser(try context.parameters.require("user"), containerID: container.id, store: server.store)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("deleted")
            writer.bool(true)
        })
    }

    // MARK: - Mail

    /// `GET .../mail/templates`: the container's templates and, for each kind, the built-in English wording and
    /// the placeholders templates may use.
    @Sendable func mailTemplates(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let templates = try await server.store.mailTemplates(containerID: container.id, environment: environment)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.array("builtIn", MailKind.allCases) { writer, kind in
                writer.beginObject()
                writer.key("kind")
                writer.string(kind.rawValue)
                writer.key("subject")
                writer.string(kind.builtIn.subject)
                writer.key("text")
                writer.string(kind.builtIn.text)
                writer.endObject()
            }
            writer.array("languages", container.accountSettings.languages) { writer, language in writer.string(language) }
            writer.array("placeholders", MailKind.placeholders.sorted()) { writer, name in writer.string(name) }
            writer.array("templates", templates) { writer, template in Self.write(template, to: &writer) }
        })
    }

    private static func write(_ template: MailTemplate, to writer: inout JSONWriter) {
        writer.beginObject()
        if let html = template.htmlBody {
            writer.key("html")
            writer.string(html)
        }
        writer.key("kind")
        writer.string(template.kind)
        writer.key("language")
        writer.string(template.language)
        writer.key("subject")
        writer.string(template.subject)
        writer.key("text")
        writer.string(template.textBody)
        writer.key("updated")
        writer.integer(template.updatedAt)
        writer.endObject()
    }

    private struct TemplateBody: Decodable {
        var subject: String
        var text: String
        var html: String?
    }

    /// `PUT .../mail/templates/{kind}/{language}` with `{subject, text, html?}`: adds or replaces a template.
    @Sendable func saveMailTemplate(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let body = try await RequestBody.decode(TemplateBody.self, from: request, limit: RequestLimits.templateBody)
        let template = try AccountSettingsRules.validatedTemplate(MailTemplate(
            containerID: container.id, environment: environment, kind: try context.parameters.require("kind"),
            language: try context.parameters.require("language"), subject: body.subject, textBody: body.text,
            htmlBody: body.html.flatMap { $0.isEmpty ? nil : $0 }, updatedAt: ServerClock.now()
        ))
        try await server.store.saveMailTemplate(template)
        var writer = JSONWriter()
        Self.write(template, to: &writer)
        return JSONResponse.make(writer)
    }

    /// `DELETE .../mail/templates/{kind}/{language}`: the built-in wording applies again.
    @Sendable func deleteMailTemplate(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        try await server.store.deleteMailTemplate(
            containerID: container.id, environment: environment, kind: try context.parameters.require("kind"),
            language: try context.parameters.require("language")
        )
        return AccountsController.empty()
    }

    private struct PreviewBody: Decodable {
        var kind: String
        var language: String?
        var subject: String?
        var text: String?
        var html: String?
    }

    /// `POST .../mail/preview` with `{kind, language?, subject?, text?, html?}`: the message as it would be sent,
    /// with sample values, from the wording given, else the stored template, else the built-in one.
    @Sendable func previewMail(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        let body = try await RequestBody.decode(PreviewBody.self, from: request, limit: RequestLimits.templateBody)
        guard let kind = MailKind(rawValue: body.kind) else { throw APIError.badRequest("unknown mail kind '\(body.kind)'") }
        let baseURL = DatabaseCall.baseURL(of: request, server)
        let samples = [
            "code": "123456", "email": "someone@example.com", "minutes": "\(AccountMailer.codeLifetime / 60_000)",
            "link": "\(baseURL)/account/1/\(container.id)/\(environment.rawValue)/link?token=sample",
        ]
        var mail = try await server.mailer.compose(
            kind, to: "someone@example.com", container: container, environment: environment, languages: body.language.map { [$0] } ?? [],
            baseURL: baseURL, values: samples
        )
        if let subject = body.subject ?? nil, let text = body.text {
            var values = samples
            values["appName"] = container.accountSettings.displayName(containerID: container.id)
            mail.subject = MailRendering.fill(subject, values)
            mail.textBody = MailRendering.fill(text, values)
            mail.htmlBody = body.html.flatMap { $0.isEmpty ? nil : MailRendering.fill($0, values, html: true) }
        }
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("from")
            writer.string("\(mail.senderName) <\(mail.senderAddress)>")
            if let html = mail.htmlBody {
                writer.key("html")
                writer.string(html)
            }
            writer.key("language")
            writer.string(mail.language)
            writer.key("subject")
            writer.string(mail.subject)
            writer.key("text")
            writer.string(mail.textBody)
        })
    }

    /// `GET /admin/1/{container}/mail?limit=`: the latest mail, newest first, without bodies (they held codes).
    @Sendable func recentMail(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await requireAdmin(request, context)
        let containerID = try context.parameters.require("container")
        _ = try await server.authenticator.container(containerID)
        let limit = try Self.integer(request.uri.queryParameters["limit"].map(String.init), named: "limit", default: 50, range: 1...500)
        let mail = try await server.store.recentMail(containerID: containerID, limit: limit)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("smtpConfigured")
            writer.bool(server.configuration.smtp != nil)
            writer.array("mail", mail) { writer, queued in
                writer.beginObject()
                writer.key("attempts")
                writer.integer(Int64(queued.attempts))
                writer.key("environment")
                writer.string(queued.mail.environment.rawValue)
                writer.key("id")
                writer.integer(queued.id)
                writer.key("kind")
                writer.string(queued.mail.kind)
                writer.key("language")
                writer.string(queued.mail.language)
                if let error = queued.lastError {
                    writer.key("lastError")
                    writer.string(error)
                }
                writer.key("nextAttempt")
                writer.integer(queued.nextAttemptAt)
                writer.key("queued")
                writer.integer(queued.queuedAt)
                writer.key("recipient")
                writer.string(queued.mail.recipient)
                if let sent = queued.sentAt {
                    writer.key("sent")
                    writer.integer(sent)
                }
                writer.key("status")
                writer.string(queued.status.rawValue)
                writer.key("subject")
                writer.string(queued.mail.subject)
                writer.endObject()
            }
        })
    }
}

extension AdminOperations {
    /// Deletes a user and their data, as `DELETE .../users/{user}` does.
    /// - Throws: `NOT_FOUND` for an unknown container or user.
    public static func deleteUser(_ user: String, containerID: String, store: any Store) async throws {
        guard let container = try await store.container(id: containerID) else { throw APIError(.notFound, "container \(containerID) does not exist") }
        guard let account = try await store.account(containerID: containerID, userRecordName: user), !account.isDeveloper else {
            throw APIError(.notFound, "no such user")
        }
        try await AccountsController.delete(account, store: store, container: container)
    }
}
