import AsyncHTTPClient
import Crypto
import Foundation
import StratusModel
import StratusStore

/// Sign in with Apple's token endpoints, which the server calls as the app's developer: `/auth/token` turns the
/// authorization code an app got into a refresh token, `/auth/revoke` revokes it when the account is deleted (App
/// Review requires it). Both take a client secret: an ES256 JWT signed with the team's key (`.p8`), which the
/// container keeps as its secret `apple.privateKey`, with ``AccountSettings/appleTeamID`` and
/// ``AccountSettings/appleKeyID``.
package struct AppleTokens: Sendable {
    package let secrets: ContainerSecrets
    /// Apple's key set URL (`--apple-keys-url`); the token endpoints are its siblings (`…/auth/token`, `…/auth/revoke`).
    package let keysURL: String
    package let client: HTTPClient

    /// The issuer of Apple's identity tokens.
    package static let issuer = "https://appleid.apple.com"

    /// The refresh token and the client ID it was issued to, as they are sealed in ``AccountIdentity/sealedRefreshToken``.
    package struct KeptToken: Codable {
        package var clientID: String
        package var refreshToken: String

        package init(clientID: String, refreshToken: String) {
            self.clientID = clientID
            self.refreshToken = refreshToken
        }
    }

    /// The team's signing details for `container`, or `nil` when its settings or its key are missing.
    package func signer(for container: ContainerInfo) async throws -> (teamID: String, keyID: String, privateKeyPEM: String)? {
        guard let teamID = container.accountSettings.appleTeamID, let keyID = container.accountSettings.appleKeyID,
            let pem = try await secrets.value(named: ContainerSecrets.applePrivateKey, containerID: container.id)
        else { return nil }
        return (teamID, keyID, pem)
    }

    /// The client secret Apple asks for: an ES256 JWT whose header names the key, issued by the team, for Apple, about
    /// the client ID; valid five minutes.
    package static func clientSecret(teamID: String, keyID: String, privateKeyPEM: String, clientID: String, now: Int64) throws -> String {
        guard let key = try? P256.Signing.PrivateKey(pemRepresentation: privateKeyPEM) else {
            throw ServiceError(.failed, "the container's apple.privateKey is not a P-256 key")
        }
        let header = try JSONSerialization.data(withJSONObject: ["alg": "ES256", "kid": keyID], options: [.sortedKeys])
        let claims = try JSONSerialization.data(
            withJSONObject: ["iss": teamID, "iat": now, "exp": now + 300, "aud": Self.issuer, "sub": clientID], options: [.sortedKeys]
        )
        let signed = WebAuthTokens.base64URL(Array(header)) + "." + WebAuthTokens.base64URL(Array(claims))
        let signature = try key.signature(for: Data(signed.utf8)).rawRepresentation
        return signed + "." + WebAuthTokens.base64URL(Array(signature))
    }

    /// Exchanges an app's authorization code for a refresh token.
    /// - Throws: `TRY_AGAIN_LATER` when Apple cannot be reached or fails; `AUTHENTICATION_FAILED` when it refuses.
    package func refreshToken(forCode code: String, clientID: String, container: ContainerInfo) async throws -> String {
        guard let signer = try await signer(for: container) else {
            throw ServiceError.invalidArgument("the container has no Apple team ID, key ID and apple.privateKey")
        }
        let answer = try await post("token", clientID: clientID, signer: signer, fields: ["code": code, "grant_type": "authorization_code"])
        guard let token = answer["refresh_token"] as? String, !token.isEmpty else {
            throw ServiceError(.authenticationFailed, "Apple gave no refresh token for the authorization code")
        }
        return token
    }

    /// Revokes a refresh token.
    /// - Throws: as ``refreshToken(forCode:clientID:container:)``, and `BAD_REQUEST` when the container cannot sign.
    package func revoke(_ kept: KeptToken, container: ContainerInfo) async throws {
        guard let signer = try await signer(for: container) else {
            throw ServiceError.invalidArgument("the container has no Apple team ID, key ID and apple.privateKey to revoke with")
        }
        _ = try await post("revoke", clientID: kept.clientID, signer: signer, fields: ["token": kept.refreshToken, "token_type_hint": "refresh_token"])
    }

    private func post(
        _ endpoint: String, clientID: String, signer: (teamID: String, keyID: String, privateKeyPEM: String), fields: [String: String]
    ) async throws -> [String: Any] {
        let secret = try Self.clientSecret(
            teamID: signer.teamID, keyID: signer.keyID, privateKeyPEM: signer.privateKeyPEM, clientID: clientID, now: ServerClock.now() / 1000
        )
        let base = keysURL.hasSuffix("/keys") ? String(keysURL.dropLast("/keys".count)) : keysURL
        let (status, answer) = try await ProviderForms.post(
            base + "/" + endpoint, fields: fields.merging(["client_id": clientID, "client_secret": secret]) { $1 }, client: client,
            what: "Apple's \(endpoint) endpoint"
        )
        switch status {
        case 200..<300: return answer
        case 500...: throw ServiceError(.unavailable, "Apple's \(endpoint) endpoint answered \(status)")
        default: throw ServiceError(.authenticationFailed, "Apple's \(endpoint) endpoint refused: \(status) \(answer["error"] as? String ?? "")")
        }
    }

    package init(secrets: ContainerSecrets, keysURL: String, client: HTTPClient) {
        self.secrets = secrets
        self.keysURL = keysURL
        self.client = client
    }
}
