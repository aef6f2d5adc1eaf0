import Foundation
import Hummingbird
import HTTPTypes
import StratusModel
import StratusServices
import StratusStore

/// Signing in on the hosted page with a container's OpenID Connect provider, the web way (OpenID Connect's
/// authorization code flow with PKCE): the page's provider button leads to `…/signin/provider/{name}`, which sends
/// the browser to the provider with a `state` (``WebFlowState``), a `nonce` and a `code_challenge`; the provider
/// sends it back to `…/callback` with a code, which the server exchanges (with the client secret kept as the
/// container's secret `openid.{name}.clientSecret`, when there is one) for an ID token it checks like any other.
/// The account is found, or made, as the native flow finds it; then the page goes on as after a password.
struct ProviderSignIn {
    let server: ServerState
    let page: SignInPage

    func register(on router: Router<StratusRequestContext>) {
        router.get("account/1/:container/:environment/signin/provider/:provider", use: start)
        router.get("account/1/:container/:environment/signin/provider/:provider/callback", use: callback)
    }

    /// Where the provider sends the browser back: what is registered with it as the client's redirect URI.
    static func callbackURL(base: String, containerID: String, environment: String, provider: String) -> String {
        "\(base)/account/1/\(containerID)/\(environment)/signin/provider/\(provider)/callback"
    }

    /// `GET …/signin/provider/{name}[?redirect=]`: to the provider's authorization endpoint, with a binding cookie.
    @Sendable func start(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let redirect = request.uri.queryParameters["redirect"].map(String.init)
        let target = try await page.target(request, context, redirect: redirect)
        guard let destination = target.destination else { return target.refusal() }
        do {
            let provider = try self.provider(context, target)
            let discovered = try await server.openID.configuration(of: provider.issuer)
            guard let endpoint = discovered.authorizationEndpoint, var components = URLComponents(string: endpoint) else {
                throw APIError(.tryAgainLater, "\(provider.name)'s discovery document names no authorization_endpoint")
            }
            let binding = WebFlowStates.random()
            let state = WebFlowState(
                provider: provider.name, containerID: target.container.id, environment: target.environment.rawValue, nonce: WebFlowStates.random(),
                verifier: WebFlowStates.random(), redirect: redirect, binding: Tokens.sha256Hex(binding),
                expiresAt: ServerClock.now() + WebFlowStates.lifetime
            )
            let callback = Self.callbackURL(
                base: DatabaseCall.baseURL(of: request, server), containerID: target.container.id, environment: target.environment.rawValue, provider: provider.name
            )
            components.queryItems = (components.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"), URLQueryItem(name: "client_id", value: provider.clientIDs[0]),
                URLQueryItem(name: "redirect_uri", value: callback), URLQueryItem(name: "scope", value: "openid email"),
                URLQueryItem(name: "state", value: try server.webFlows.seal(state)), URLQueryItem(name: "nonce", value: state.nonce),
                URLQueryItem(name: "code_challenge", value: WebFlowStates.challenge(for: state.verifier)),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
            var headers = HTTPFields()
            headers[.location] = components.url?.absoluteString ?? endpoint
            headers[.cacheControl] = "no-store"
            let secure = DatabaseCall.baseURL(of: request, server).hasPrefix("https://") ? "; Secure" : ""
            headers[.setCookie] = "\(WebFlowStates.cookie)=\(binding); Path=/account/1/; Max-Age=600; HttpOnly; SameSite=Lax\(secure)"
            return Response(status: .found, headers: headers)
        } catch let caught where caught is APIError || caught is ServiceError {
            let error = APIError(translating: caught)
            return target.page(SignInPage.passwordForm(destination, email: "", error: Self.sentence(error), target: target), status: .badRequest)
        }
    }

    /// `GET …/callback?code&state` (or `?error`): checks the state, exchanges the code, checks the ID token, signs in.
    @Sendable func callback(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let state = query["state"].flatMap({ server.webFlows.open(String($0)) }) else {
            let target = try await page.target(request, context, redirect: nil)
            return target.refusal()
        }
        let target = try await page.target(request, context, redirect: state.redirect)
        guard let destination = target.destination else { return target.refusal() }
        do {
            let provider = try self.provider(context, target)
            guard state.provider == provider.name, state.containerID == target.container.id, state.environment == target.environment.rawValue else {
                throw APIError(.authenticationFailed, "this sign-in was started for another provider or container")
            }
            guard state.expiresAt > ServerClock.now() else { throw APIError(.authenticationFailed, "this sign-in took too long; start it again") }
            guard let binding = Self.cookie(WebFlowStates.cookie, in: request), Tokens.sha256Hex(binding) == state.binding else {
                throw APIError(.authenticationFailed, "this sign-in was started in another browser; start it again here")
            }
            if let error = query["error"] {
                throw APIError(.authenticationFailed, "\(provider.name) did not sign you in (\(error))")
            }
            guard let code = query["code"].map(String.init), !code.isEmpty else { throw APIError(.authenticationFailed, "\(provider.name) sent no code") }
            guard try await server.store.markSignatureSeen(
                "oidc-state|" + Tokens.sha256Hex(String(query["state"] ?? "")), expiresAt: state.expiresAt, now: ServerClock.now()
            ) else {
                throw APIError(.authenticationFailed, "this sign-in was used already; start it again")
            }
            let discovered = try await server.openID.configuration(of: provider.issuer)
            let secret = try await server.secrets.value(named: ContainerSecrets.clientSecretName(of: provider.name), containerID: target.container.id)
            let callback = Self.callbackURL(
                base: DatabaseCall.baseURL(of: request, server), containerID: target.container.id, environment: target.environment.rawValue, provider: provider.name
            )
            let idToken = try await server.openID.idToken(
                forCode: code, verifier: state.verifier, redirectURI: callback, clientID: provider.clientIDs[0], clientSecret: secret, at: discovered
            )
            let verified = try await server.idTokens.verify(
                idToken,
                IDTokenVerifier.Expectation(
                    issuer: provider.issuer, audiences: [provider.clientIDs[0]], keysURL: discovered.keysURL, sentNonce: state.nonce
                )
            )
            let authentication = Authentication(container: target.container, environment: target.environment)
            let (account, _) = try await page.accounts.providerAccount(
                provider: provider.name, verified, givenName: nil, familyName: nil, authentication, request, context
            )
            if account.isDisabled { throw AccountsController.disabled }
            return try await page.signedIn(account, target: target, destination: destination)
        } catch let caught where caught is APIError || caught is ServiceError {
            let error = APIError(translating: caught)
            return target.page(SignInPage.passwordForm(destination, email: "", error: Self.sentence(error), target: target), status: .badRequest)
        }
    }

    private func provider(_ context: StratusRequestContext, _ target: SignInPage.Target) throws -> AccountSettings.OpenIDProvider {
        let name = try context.parameters.require("provider")
        guard let provider = target.container.accountSettings.openIDProviders.first(where: { $0.name == name }) else {
            throw APIError(.notFound, "this app has no sign-in provider named \(name)")
        }
        return provider
    }

    private static func sentence(_ error: APIError) -> String {
        error.reason.prefix(1).uppercased() + error.reason.dropFirst() + "."
    }

    /// A cookie's value from the request's `Cookie` headers.
    static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }
}
