import StratusModel

/// The mail queue and templates, written once over any backend's tables (``SQLTables``).
extension MailStore where Self: SQLTables {
    public func queueMail(_ mail: OutgoingMail, now: Int64) async throws -> Int64 {
        let results = try await transaction(MailStatements.queueing(mail, now: now), emitting: [.mailQueued])
        guard let id = try results.last?.first?.integer("id") else { throw StorageError(.internalFailure, "queued mail has no id") }
        return id
    }

    public func dueMail(now: Int64, limit: Int) async throws -> [QueuedMail] {
        try await mail(
            where: "status = 'queued' AND next_attempt_at <= \(.integer(now)) ORDER BY next_attempt_at, id LIMIT \(.integer(Int64(limit)))",
            withBodies: true
        )
    }

    public func nextMailDue() async throws -> Int64? {
        try await rows("SELECT MIN(next_attempt_at) AS due FROM mail_queue WHERE status = 'queued'").first.flatMap { row in
            row.isNull("due") ? nil : try row.integer("due")
        }
    }

    public func markMailSent(id: Int64, at time: Int64) async throws {
        try await execute([
            """
            UPDATE mail_queue SET status = 'sent', attempts = attempts + 1, sent_at = \(.integer(time)), text_body = '', html_body = NULL
            WHERE id = \(.integer(id))
            """,
        ])
    }

    public func markMailFailed(id: Int64, error: String, retryAt: Int64?) async throws {
        let message = SQLValue.text(String(error.prefix(500)))
        if let retryAt {
            try await execute([
                """
                UPDATE mail_queue SET attempts = attempts + 1, last_error = \(message), next_attempt_at = \(.integer(retryAt))
                WHERE id = \(.integer(id))
                """,
            ])
        } else {
            try await execute([
                """
                UPDATE mail_queue SET status = 'failed', attempts = attempts + 1, last_error = \(message), text_body = '', html_body = NULL
                WHERE id = \(.integer(id))
                """,
            ])
        }
    }

    public func recentMail(containerID: String, limit: Int) async throws -> [QueuedMail] {
        try await mail(where: "container_id = \(.text(containerID)) ORDER BY id DESC LIMIT \(.integer(Int64(limit)))", withBodies: false)
    }

    public func waitingMail() async throws -> [String: Int] {
        var waiting: [String: Int] = [:]
        for row in try await rows("SELECT container_id, COUNT(*) AS waiting FROM mail_queue WHERE status = 'queued' GROUP BY container_id") {
            waiting[try row.text("container_id")] = Int(try row.integer("waiting"))
        }
        return waiting
    }

    private func mail(where condition: SQLFragment, withBodies: Bool) async throws -> [QueuedMail] {
        let bodies: SQLFragment = withBodies ? "text_body, html_body" : "'' AS text_body, NULL AS html_body"
        return try await rows("""
            SELECT id, container_id, environment, kind, language, recipient, sender_address, sender_name, subject, \(bodies), status, attempts,
                queued_at, next_attempt_at, sent_at, last_error
            FROM mail_queue WHERE \(condition)
            """).compactMap { row in
            guard let environment = Environment(rawValue: try row.text("environment")),
                let status = QueuedMail.Status(rawValue: try row.text("status"))
            else { return nil }
            let mail = OutgoingMail(
                containerID: try row.text("container_id"), environment: environment, kind: try row.text("kind"),
                language: try row.text("language"), recipient: try row.text("recipient"), senderAddress: try row.text("sender_address"),
                senderName: try row.text("sender_name"), subject: try row.text("subject"), textBody: try row.text("text_body"),
                htmlBody: try row.optionalText("html_body")
            )
            return QueuedMail(
                id: try row.integer("id"), mail: mail, status: status, attempts: Int(try row.integer("attempts")),
                queuedAt: try row.integer("queued_at"), nextAttemptAt: try row.integer("next_attempt_at"),
                sentAt: row.isNull("sent_at") ? nil : try row.integer("sent_at"), lastError: try row.optionalText("last_error")
            )
        }
    }

    // MARK: - Templates

    public func mailTemplates(containerID: String, environment: Environment) async throws -> [MailTemplate] {
        try await rows("""
            SELECT kind, language, subject, text_body, html_body, updated_at FROM mail_templates
            WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) ORDER BY kind, language
            """).map { row in
            MailTemplate(
                containerID: containerID, environment: environment, kind: try row.text("kind"), language: try row.text("language"),
                subject: try row.text("subject"), textBody: try row.text("text_body"), htmlBody: try row.optionalText("html_body"),
                updatedAt: try row.integer("updated_at")
            )
        }
    }

    public func saveMailTemplate(_ template: MailTemplate) async throws {
        try await transaction([
            """
            INSERT INTO mail_templates (container_id, environment, kind, language, subject, text_body, html_body, updated_at)
            VALUES (\(.text(template.containerID)), \(.text(template.environment.rawValue)), \(.text(template.kind)), \
            \(.text(template.language)), \(.text(template.subject)), \(.text(template.textBody)), \(SQLValue(template.htmlBody)), \
            \(.integer(template.updatedAt)))
            ON CONFLICT (container_id, environment, kind, language) DO UPDATE SET subject = excluded.subject,
                text_body = excluded.text_body, html_body = excluded.html_body, updated_at = excluded.updated_at
            """,
        ])
    }

    public func deleteMailTemplate(containerID: String, environment: Environment, kind: String, language: String) async throws {
        try await transaction([
            """
            DELETE FROM mail_templates WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) \
            AND kind = \(.text(kind)) AND language = \(.text(language))
            """,
        ])
    }
}

/// Statements that queue mail, for the transactions that ask for it.
enum MailStatements {
    /// How long sent and failed mail stays listed, in milliseconds: 30 days.
    static let retention: Int64 = 30 * 24 * 3600 * 1000

    /// Sweeps mail older than ``retention`` that is no longer queued, then inserts `mail`, due at `now`, returning
    /// its `id`.
    static func queueing(_ mail: OutgoingMail, now: Int64) -> [SQLFragment] {
        [
            "DELETE FROM mail_queue WHERE status <> 'queued' AND queued_at < \(.integer(now - retention))",
            """
            INSERT INTO mail_queue (container_id, environment, kind, language, recipient, sender_address, sender_name, subject, text_body,
                html_body, status, attempts, queued_at, next_attempt_at)
            VALUES (\(.text(mail.containerID)), \(.text(mail.environment.rawValue)), \(.text(mail.kind)), \(.text(mail.language)), \
            \(.text(mail.recipient)), \(.text(mail.senderAddress)), \(.text(mail.senderName)), \(.text(mail.subject)), \
            \(.text(mail.textBody)), \(SQLValue(mail.htmlBody)), 'queued', 0, \(.integer(now)), \(.integer(now)))
            RETURNING id
            """,
        ]
    }
}
