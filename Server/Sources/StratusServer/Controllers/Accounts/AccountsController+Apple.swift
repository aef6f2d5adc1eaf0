import Foundation
import Hummingbird
import Logging
import StratusModel
import StratusServices
import StratusStore

/// Sign in with Apple: the app sends the identity token `ASAuthorizationAppleIDProvider` gave it, and the raw nonce.
extension AccountsController {
    func registerApple(on group: RouterGroup<StratusRequestContext>) {
        group.post("signin/apple", use: signInWithApple)
    }


    /// `POST signin/apple` with `{identityToken, nonce, givenName?, familyName?, deviceName?}`: checks the token as
    /// Apple documents, then signs in the account linked to the Apple ID's `sub`; or, signed in, links it to the
    /// caller's account (an anonymous one keeps its data); or makes an account (`201`).
    /// - Throws: `AUTHENTICATION_FAILED` for a token that fails a check or a nonce used before; `EXISTS` when the
    ///   address Apple gives has an account already (sign in to it and link Apple there: accounts are never merged
    ///   silently); `BAD_REQUEST` when the container has no Apple client IDs.
    @Sendable func signInWithApple(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(AppleSignInRequest.self, from: request, limit: RequestLimits.jsonBody)
        let container = authentication.container
        let clientIDs = container.accountSettings.appleClientIDs
        guard !clientIDs.isEmpty else {
            throw APIError.badRequest("Sign in with Apple is not set up for this container: give its appleClientIDs (admin accounts/settings)")
        }
        guard !body.nonce.isEmpty else { throw APIError.badRequest("nonce is the raw nonce whose SHA-256 the app put in its request") }
        let verified = try await server.idTokens.verify(
            body.identityToken,
            IDTokenVerifier.Expectation(
                issuer: AppleTokens.issuer, audiences: clientIDs, keysURL: server.configuration.appleKeysURL, rawNonce: body.nonce
            )
        )
        // A token works once: its nonce is remembered until the token expires.
        let now = ServerClock.now()
        guard try await server.store.markSignatureSeen(
            "apple-nonce|" + container.id + "|" + (verified.nonce ?? ""), expiresAt: (verified.expiresAt + IDTokenVerifier.skew) * 1000, now: now
        ) else {
            throw APIError(.authenticationFailed, "this identity token was used already; sign in with Apple again")
        }
        let (account, created) = try await providerAccount(
            provider: "apple", verified, givenName: body.givenName, familyName: body.familyName, authentication, request, context
        )
        if account.isDisabled { throw Self.disabled }
        if let code = body.authorizationCode, !code.isEmpty, container.accountSettings.appleTeamID != nil {
            keepAppleRefreshToken(code: code, clientID: verified.audience, subject: verified.subject, container: container)
        }
        let token = try await server.authenticator.startSession(for: account, deviceName: body.deviceName)
        return try JSONResponse.make(
            encoding: SignInResponse(ckWebAuthToken: token, userRecordName: account.userRecordName, emailVerified: account.isEmailVerified),
            status: created ? .created : .ok
        )
    }

    /// Exchanges the authorization code for a refresh token and keeps it, sealed, with the user's Apple identity, so
    /// that deleting the account revokes it. Done beside the answer, not in its way: when Apple is slow or down the
    /// sign-in goes on, and only this token is not kept (the next sign-in with a code keeps one).
    private func keepAppleRefreshToken(code: String, clientID: String, subject: String, container: ContainerInfo) {
        let (store, tokens, keys, logger) = (server.store, server.appleTokens, server.configuration.secretsKeys, Logger(label: "stratus.accounts"))
        Task {
            do {
                let refreshToken = try await tokens.refreshToken(forCode: code, clientID: clientID, container: container)
                guard var identity = try await store.identity(containerID: container.id, provider: "apple", subject: subject) else { return }
                let kept = String(decoding: try JSONEncoder().encode(AppleTokens.KeptToken(clientID: clientID, refreshToken: refreshToken)), as: UTF8.self)
                identity.sealedRefreshToken = try keys.seal(kept, context: SealingContext.refreshToken(container.id, "apple", subject))
                try await store.updateIdentity(identity)
            } catch {
                logger.warning(
                    "Apple's refresh token could not be kept; the account's deletion will not revoke it",
                    metadata: ["stratus.container": "\(container.id)", "stratus.error": "\(String(reflecting: error))"]
                )
            }
        }
    }

    /// The account a provider's verified user signs in to: the one linked to their identity (whose address and
    /// flags are brought up to date), else the signed-in caller's (linked now: a way in is added, so the caller
    /// signed in within 5 minutes, or is anonymous), else a new one.
    /// - Returns: the account, and whether it was made now.
    func providerAccount(
        provider: String, _ verified: IDTokenVerifier.Identity, givenName: String?, familyName: String?, _ authentication: Authentication,
        _ request: Request, _ context: StratusRequestContext
    ) async throws -> (Account, Bool) {
        let container = authentication.container
        let now = ServerClock.now()
        if var identity = try await server.store.identity(containerID: container.id, provider: provider, subject: verified.subject) {
            if let caller = authentication.userRecordName, caller != identity.userRecordName {
                throw APIError(.exists, "this \(provider) account is linked to another account; sign in to that one")
            }
            identity.emailAddress = verified.emailAddress ?? identity.emailAddress
            identity.isEmailVerified = verified.isEmailVerified
            identity.isPrivateEmail = verified.isPrivateEmail
            identity.lastUsedAt = now
            try await server.store.updateIdentity(identity)
            guard let account = try await server.store.account(containerID: container.id, userRecordName: identity.userRecordName) else {
                throw APIError(.authenticationFailed, "the account no longer exists")
            }
            return (account, false)
        }
        if let caller = authentication.userRecordName {
            let signedIn = try await signedInAccount(authentication)
            // The provider's sign-in carries no password: only a recent sign-in confirms the link.
            try await confirmRecentSignIn(password: nil, of: signedIn, authentication, request, context, to: "link \(provider)", takesPassword: false)
            let identity = AccountIdentity(
                containerID: container.id, provider: provider, subject: verified.subject, userRecordName: caller, emailAddress: verified.emailAddress,
                isEmailVerified: verified.isEmailVerified, isPrivateEmail: verified.isPrivateEmail, createdAt: now, lastUsedAt: now
            )
            try await server.store.addIdentity(identity)
            guard let account = try await server.store.account(containerID: container.id, userRecordName: caller) else {
                throw APIError(.authenticationFailed, "the account no longer exists")
            }
            return (account, false)
        }
        if let email = verified.emailAddress, try await server.store.account(containerID: container.id, emailAddress: email) != nil {
            throw APIError(
                .exists,
                "an account with the address \(provider) gave exists already: sign in to it, then link \(provider) (signed in, the same request links it)"
            )
        }
        let account = Account(
            containerID: container.id, userRecordName: "_" + Tokens.randomHex(bytes: 16), emailAddress: verified.emailAddress, passwordHash: "",
            givenName: givenName.flatMap(Self.nonEmpty).map { String($0.prefix(100)) },
            familyName: familyName.flatMap(Self.nonEmpty).map { String($0.prefix(100)) },
            isEmailVerified: verified.isEmailVerified, createdAt: now
        )
        let identity = AccountIdentity(
            containerID: container.id, provider: provider, subject: verified.subject, userRecordName: account.userRecordName,
            emailAddress: verified.emailAddress, isEmailVerified: verified.isEmailVerified, isPrivateEmail: verified.isPrivateEmail,
            createdAt: now, lastUsedAt: now
        )
        do {
            try await server.store.createAccount(account, passkey: nil, identity: identity)
        } catch let error as StorageError where error.code == .alreadyExists {
            throw APIError(.exists, "this \(provider) account signed up at the same moment; sign in again")
        }
        return (account, true)
    }
}
