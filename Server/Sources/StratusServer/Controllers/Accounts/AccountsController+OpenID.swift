import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Sign-in with a container's OpenID Connect providers, the native way: the app signs the user in with the
/// provider's own SDK and hands over the ID token it got.
extension AccountsController {
    func registerOpenID(on group: RouterGroup<StratusRequestContext>) {
        group.post("signin/provider/:provider", use: signInWithProvider)
    }

    /// `POST signin/provider/{name}` with `{idToken, nonce?, givenName?, familyName?, deviceName?}`: checks the ID token
    /// against the provider's discovery document and keys (issuer, audience among its client IDs, expiry, the nonce's
    /// SHA-256 when one is given), and signs in as ``providerAccount(provider:_:givenName:familyName:_:_:_:)`` finds the
    /// account: linked, the signed-in caller's, or new (`201`).
    @Sendable func signInWithProvider(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let name = try context.parameters.require("provider")
        guard let provider = authentication.container.accountSettings.openIDProviders.first(where: { $0.name == name }) else {
            throw APIError(.notFound, "this container has no OpenID provider named \(name)")
        }
        let body = try await RequestBody.decode(ProviderSignInRequest.self, from: request, limit: RequestLimits.jsonBody)
        let discovered = try await server.openID.configuration(of: provider.issuer)
        let verified = try await server.idTokens.verify(
            body.idToken,
            IDTokenVerifier.Expectation(
                issuer: provider.issuer, audiences: provider.clientIDs, keysURL: discovered.keysURL, rawNonce: body.nonce.flatMap { $0.isEmpty ? nil : $0 }
            )
        )
        // An ID token works once: remembered by its nonce, or else by its signature, until it expires.
        let marker: String = verified.nonce ?? String(body.idToken.suffix(86))
        let seen = "oidc|\(authentication.container.id)|\(name)|\(marker)"
        let expires: Int64 = (verified.expiresAt + IDTokenVerifier.skew) * 1000
        guard try await server.store.markSignatureSeen(seen, expiresAt: expires, now: ServerClock.now()) else {
            throw APIError(.authenticationFailed, "this ID token was used already; sign in with \(name) again")
        }
        let (account, created) = try await providerAccount(
            provider: name, verified, givenName: body.givenName, familyName: body.familyName, authentication, request, context
        )
        if account.isDisabled { throw Self.disabled }
        let token = try await server.authenticator.startSession(for: account, deviceName: body.deviceName)
        return try JSONResponse.make(
            encoding: SignInResponse(ckWebAuthToken: token, userRecordName: account.userRecordName, emailVerified: account.isEmailVerified),
            status: created ? .created : .ok
        )
    }
}
