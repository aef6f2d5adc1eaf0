/// What a password must be, written once: one rule for the accounts of apps' users and a stricter one for the people
/// who run the server, checked wherever a password is set (sign-up, a change, a reset by code or by mailed link, an
/// operator made or reset).
public struct PasswordPolicy: Sendable, Hashable {
    /// The fewest characters (grapheme clusters, as a person counts them).
    public var minimumCharacters: Int
    /// The most bytes in UTF-8: enough for any passphrase, few enough that hashing stays cheap.
    public var maximumBytes: Int

    /// Apps' users: 8 characters or more.
    public static let user = PasswordPolicy(minimumCharacters: 8, maximumBytes: 1024)
    /// Operators, who act on every user's data: 12 characters or more.
    public static let operators = PasswordPolicy(minimumCharacters: 12, maximumBytes: 1024)

    public init(minimumCharacters: Int, maximumBytes: Int) {
        self.minimumCharacters = minimumCharacters
        self.maximumBytes = maximumBytes
    }

    /// Why `password` is refused, as the end of a sentence ("needs at least 8 characters"); `nil` when it is allowed.
    public func refusal(of password: String) -> String? {
        if password.count < minimumCharacters { return "needs at least \(minimumCharacters) characters" }
        if password.utf8.count > maximumBytes { return "may have at most \(maximumBytes) bytes" }
        return nil
    }
}
