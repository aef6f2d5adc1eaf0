import Foundation
internal import StratusModel

/// The ways into the signed-in user's account: a password, passkeys, Sign in with Apple and other providers.
extension Container {
    /// One way into the account.
    public struct SignInMethod: Sendable, Hashable {
        /// `password`, `passkey`, `apple`, or an OpenID Connect provider's name.
        public var method: String
        /// A passkey's credential ID, or the provider's ID for the user.
        public var subject: String?
        /// The address a provider gave.
        public var emailAddress: String?
        public var created: Date?
    }

    /// The account's ways in.
    public func signInMethods() async throws -> [SignInMethod] {
        try await get(authURL("account/sign-in-methods"), answer: SignInMethodsResponse.self).methods.map { entry in
            SignInMethod(method: entry.method, subject: entry.subject, emailAddress: entry.emailAddress, created: entry.created.map(Date.init(milliseconds:)))
        }
    }

    /// Unlinks a provider (`apple`, or another's name) from the account.
    /// - Throws: ``StratusError`` `invalidArguments` when it is the account's only way in.
    public func removeSignInMethod(_ method: String, subject: String) async throws {
        try await send("POST", authURL("account/sign-in-methods/remove"), body: RemoveSignInMethodRequest(method: method, subject: subject))
    }
}
