import AsyncHTTPClient
import Foundation
import NIOCore

extension OpenIDDiscovery {
    /// Exchanges an authorization code at the provider's token endpoint for the user's ID token (OpenID Connect's
    /// code flow, with PKCE's `code_verifier`), authenticating as the client with HTTP Basic when it has a secret
    /// (`client_secret_basic`), else as a public client.
    /// - Throws: `TRY_AGAIN_LATER` when the provider cannot be reached or fails; `AUTHENTICATION_FAILED` when it
    ///   refuses the code or the client.
    func idToken(
        forCode code: String, verifier: String, redirectURI: String, clientID: String, clientSecret: String?, at provider: Configuration
    ) async throws -> String {
        guard let endpoint = provider.tokenEndpoint else {
            throw APIError(.tryAgainLater, "the provider's discovery document names no token_endpoint")
        }
        var fields = ["grant_type": "authorization_code", "code": code, "redirect_uri": redirectURI, "code_verifier": verifier]
        var request = HTTPClientRequest(url: endpoint)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "accept", value: "application/json")
        if let clientSecret {
            let credentials = AppleTokens.formEscaped(clientID) + ":" + AppleTokens.formEscaped(clientSecret)
            request.headers.add(name: "authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString())
        } else {
            fields["client_id"] = clientID
        }
        let form = fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(AppleTokens.formEscaped($0.value))" }.joined(separator: "&")
        request.body = .bytes(ByteBuffer(string: form))
        let status: UInt
        let body: ByteBuffer
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            status = response.status.code
            body = try await response.body.collect(upTo: 256 * 1024)
        } catch {
            throw APIError(.tryAgainLater, "the provider's token endpoint could not be reached: \(error)")
        }
        let answer = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] ?? [:]
        guard (200..<300).contains(status) else {
            if status >= 500 { throw APIError(.tryAgainLater, "the provider's token endpoint answered \(status)") }
            throw APIError(.authenticationFailed, "the provider refused the sign-in: \(answer["error"] as? String ?? "\(status)")")
        }
        guard let idToken = answer["id_token"] as? String else {
            throw APIError(.authenticationFailed, "the provider answered without an ID token (is the openid scope allowed?)")
        }
        return idToken
    }
}
