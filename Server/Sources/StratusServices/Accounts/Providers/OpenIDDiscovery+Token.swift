import AsyncHTTPClient
import Foundation

extension OpenIDDiscovery {
    /// Exchanges an authorization code at the provider's token endpoint for the user's ID token (OpenID Connect's
    /// code flow, with PKCE's `code_verifier`), authenticating as the client with HTTP Basic when it has a secret
    /// (`client_secret_basic`), else as a public client.
    /// - Throws: `TRY_AGAIN_LATER` when the provider cannot be reached or fails; `AUTHENTICATION_FAILED` when it
    ///   refuses the code or the client.
    package func idToken(
        forCode code: String, verifier: String, redirectURI: String, clientID: String, clientSecret: String?, at provider: Configuration
    ) async throws -> String {
        guard let endpoint = provider.tokenEndpoint else {
            throw ServiceError(.unavailable, "the provider's discovery document names no token_endpoint")
        }
        var fields = ["grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI, "code_verifier": verifier]
        var authorization: String?
        if let clientSecret {
            let credentials = ProviderForms.escaped(clientID) + ":" + ProviderForms.escaped(clientSecret)
            authorization = "Basic " + Data(credentials.utf8).base64EncodedString()
        } else {
            fields["client_id"] = clientID
        }
        let (status, answer) = try await ProviderForms.post(
            endpoint, fields: fields, authorization: authorization, client: client, what: "the provider's token endpoint"
        )
        guard (200..<300).contains(status) else {
            if status >= 500 { throw ServiceError(.unavailable, "the provider's token endpoint answered \(status)") }
            throw ServiceError(.authenticationFailed, "the provider refused the sign-in: \(answer["error"] as? String ?? "\(status)")")
        }
        guard let idToken = answer["id_token"] as? String else {
            throw ServiceError(.authenticationFailed, "the provider answered without an ID token (is the openid scope allowed?)")
        }
        return idToken
    }
}
