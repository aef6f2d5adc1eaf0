import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationCompat
import Synchronization

/// OpenID Connect providers' discovery documents (`{issuer}/.well-known/openid-configuration`), fetched when first
/// needed and kept for an hour: where each publishes its keys, and its endpoints.
package final class OpenIDDiscovery: Sendable {
    /// What Stratus reads of a discovery document.
    package struct Configuration: Sendable {
        package var issuer: String
        package var keysURL: String
        package var authorizationEndpoint: String?
        package var tokenEndpoint: String?
    }

    package let client: HTTPClient
    private let known = Mutex<[String: (Configuration, ContinuousClock.Instant)]>([:])
    private static let lifetime = Duration.seconds(3600)

    package init(client: HTTPClient) {
        self.client = client
    }

    /// The configuration `issuer` publishes.
    /// - Throws: `TRY_AGAIN_LATER` when it cannot be fetched, `AUTHENTICATION_FAILED` when it names another issuer.
    package func configuration(of issuer: String) async throws -> Configuration {
        if let (configuration, at) = known.withLock({ $0[issuer] }), ContinuousClock.now - at < Self.lifetime { return configuration }
        let url = (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
        let body: ByteBuffer
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            guard response.status == .ok else { throw ServiceError(.unavailable, "the provider's discovery document answered \(response.status.code)") }
            body = try await response.body.collect(upTo: 1 << 20)
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(.unavailable, "the provider's discovery document (\(url)) could not be fetched: \(error)")
        }
        guard let document = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
            let published = document["issuer"] as? String, let keys = document["jwks_uri"] as? String
        else {
            throw ServiceError(.unavailable, "the provider's discovery document (\(url)) has no issuer or jwks_uri")
        }
        guard published == issuer else {
            throw ServiceError(.authenticationFailed, "the discovery document at \(url) is for issuer \(published), not \(issuer)")
        }
        let configuration = Configuration(
            issuer: published, keysURL: keys, authorizationEndpoint: document["authorization_endpoint"] as? String,
            tokenEndpoint: document["token_endpoint"] as? String
        )
        known.withLock { $0[issuer] = (configuration, ContinuousClock.now) }
        return configuration
    }
}
