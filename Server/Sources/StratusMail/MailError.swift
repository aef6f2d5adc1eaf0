/// Why a message was not sent: the only error type of `StratusMail`.
public struct MailError: Error, Sendable, CustomStringConvertible {
    /// Whether sending the same message again cannot work (a `5xx` reply, bad settings): the queue gives up on it.
    /// Otherwise (a `4xx` reply, a server that is down or slow) it is tried again later.
    public var isPermanent: Bool
    /// What went wrong, with the SMTP server's reply when there was one; never a password.
    public var message: String

    public init(_ message: String, permanent: Bool) {
        self.message = message
        self.isPermanent = permanent
    }

    public var description: String { message }
}
