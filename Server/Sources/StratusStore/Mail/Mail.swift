import StratusModel

/// A message to send, rendered: who it goes to, from whom, and its text.
public struct OutgoingMail: Sendable, Hashable {
    public var containerID: String
    public var environment: Environment
    /// Which template made it (`verify-email`, `reset-password`, ...), for the console's list.
    public var kind: String
    /// The template language used.
    public var language: String
    public var recipient: String
    public var senderAddress: String
    public var senderName: String
    public var subject: String
    public var textBody: String
    /// An HTML alternative, when the template has one.
    public var htmlBody: String?

    public init(
        containerID: String, environment: Environment, kind: String, language: String, recipient: String, senderAddress: String,
        senderName: String, subject: String, textBody: String, htmlBody: String? = nil
    ) {
        self.containerID = containerID
        self.environment = environment
        self.kind = kind
        self.language = language
        self.recipient = recipient
        self.senderAddress = senderAddress
        self.senderName = senderName
        self.subject = subject
        self.textBody = textBody
        self.htmlBody = htmlBody
    }
}

/// A message in the store's mail queue.
public struct QueuedMail: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, Codable {
        /// Waiting for its first or next attempt.
        case queued
        /// The SMTP server accepted it.
        case sent
        /// Given up on after its last attempt.
        case failed
    }

    public var id: Int64
    /// The message; its bodies are erased once it is sent or given up on (they may hold codes and links), and
    /// are empty in lists (``MailStore/recentMail(containerID:limit:)``).
    public var mail: OutgoingMail
    public var status: Status
    /// Attempts made so far.
    public var attempts: Int
    /// Milliseconds since 1970.
    public var queuedAt: Int64
    /// When the next attempt is due (for ``Status/queued``).
    public var nextAttemptAt: Int64
    /// When the SMTP server accepted it.
    public var sentAt: Int64?
    /// What the last failed attempt met (the SMTP server's reply or a connection error).
    public var lastError: String?

    public init(
        id: Int64, mail: OutgoingMail, status: Status, attempts: Int, queuedAt: Int64, nextAttemptAt: Int64, sentAt: Int64?,
        lastError: String?
    ) {
        self.id = id
        self.mail = mail
        self.status = status
        self.attempts = attempts
        self.queuedAt = queuedAt
        self.nextAttemptAt = nextAttemptAt
        self.sentAt = sentAt
        self.lastError = lastError
    }
}

/// A container's own wording for one kind of mail in one language, replacing the built-in English default.
///
/// Placeholders in `{{name}}` form are filled in when a message is made (`{{appName}}`, `{{code}}`, `{{link}}`,
/// `{{email}}`, `{{minutes}}`).
public struct MailTemplate: Sendable, Hashable {
    public var containerID: String
    public var environment: Environment
    public var kind: String
    public var language: String
    public var subject: String
    public var textBody: String
    public var htmlBody: String?
    /// Milliseconds since 1970.
    public var updatedAt: Int64

    public init(
        containerID: String, environment: Environment, kind: String, language: String, subject: String, textBody: String,
        htmlBody: String?, updatedAt: Int64
    ) {
        self.containerID = containerID
        self.environment = environment
        self.kind = kind
        self.language = language
        self.subject = subject
        self.textBody = textBody
        self.htmlBody = htmlBody
        self.updatedAt = updatedAt
    }
}

/// The mail queue and the containers' mail templates.
///
/// Mail is queued in the transaction that asks for it (with the code it carries, see
/// ``AccountStore/createAccountCode(_:mail:)``), so a message is never lost to a crash; one process at a time
/// sends (under a lease) and retries what failed.
public protocol MailStore: Sendable {
    /// Queues a message, due at once; announces it with ``StoreEvent/mailQueued``.
    @discardableResult
    func queueMail(_ mail: OutgoingMail, now: Int64) async throws -> Int64
    /// Queued messages due by `now`, oldest first.
    func dueMail(now: Int64, limit: Int) async throws -> [QueuedMail]
    /// When the earliest queued message is due; `nil` when the queue is empty.
    func nextMailDue() async throws -> Int64?
    /// Records that the SMTP server accepted a message, and erases its bodies.
    func markMailSent(id: Int64, at time: Int64) async throws
    /// Records a failed attempt: the message is due again at `retryAt`, or given up on (bodies erased) when it is `nil`.
    func markMailFailed(id: Int64, error: String, retryAt: Int64?) async throws
    /// A container's latest messages, newest first, without their bodies.
    func recentMail(containerID: String, limit: Int) async throws -> [QueuedMail]
    /// How many messages of each container wait for their first or next attempt.
    func waitingMail() async throws -> [String: Int]

    /// A container environment's templates.
    func mailTemplates(containerID: String, environment: Environment) async throws -> [MailTemplate]
    /// Adds or replaces the template of a kind and language.
    func saveMailTemplate(_ template: MailTemplate) async throws
    /// Removes a template, so that the built-in one applies again; removing a missing one is not an error.
    func deleteMailTemplate(containerID: String, environment: Environment, kind: String, language: String) async throws
}
