import Crypto
import Foundation

/// What the hosted sign-in page remembers between sending a browser to an OpenID Connect provider and its coming
/// back: carried in the `state` parameter itself, sealed (AES-GCM) with a key every node shares, so that any node
/// takes the callback; bound to the browser that started (a cookie whose hash it holds) and used once.
package struct WebFlowState: Codable, Sendable {
    package var provider: String
    package var containerID: String
    package var environment: String
    /// The nonce the ID token must carry, as sent.
    package var nonce: String
    /// PKCE's `code_verifier` (RFC 7636), whose SHA-256 went out as the `code_challenge`.
    package var verifier: String
    /// Where the app wants the user back; `nil` for a popup, whose opener receives the session.
    package var redirect: String?
    /// The SHA-256, in hexadecimal, of the browser's binding cookie.
    package var binding: String
    /// Milliseconds since 1970.
    package var expiresAt: Int64

    package init(provider: String, containerID: String, environment: String, nonce: String, verifier: String, redirect: String? = nil, binding: String, expiresAt: Int64) {
        self.provider = provider
        self.containerID = containerID
        self.environment = environment
        self.nonce = nonce
        self.verifier = verifier
        self.redirect = redirect
        self.binding = binding
        self.expiresAt = expiresAt
    }
}

package struct WebFlowStates: Sendable {
    package let key: Data
    /// How long a browser may take at the provider: 10 minutes.
    package static let lifetime: Int64 = 600_000
    /// The cookie that binds a flow to its browser.
    package static let cookie = "stratus_oidc"

    package func seal(_ state: WebFlowState) throws -> String {
        let box = try AES.GCM.seal(try JSONEncoder().encode(state), using: SymmetricKey(data: key), authenticating: Data("oidc-state".utf8))
        return WebAuthTokens.base64URL(Array(box.combined ?? Data()))
    }

    /// The state `text` holds, or `nil` when it was not sealed by a node of this server.
    package func open(_ text: String) -> WebFlowState? {
        guard text.utf8.count < 4096, let bytes = WebAuthTokens.bytes(base64URL: text), let box = try? AES.GCM.SealedBox(combined: Data(bytes)),
            let opened = try? AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: Data("oidc-state".utf8))
        else { return nil }
        return try? JSONDecoder().decode(WebFlowState.self, from: opened)
    }

    /// Random text for nonces, verifiers and bindings: 32 bytes in base64url.
    package static func random() -> String {
        WebAuthTokens.base64URL((0..<32).map { _ in UInt8.random(in: 0...255) })
    }

    /// PKCE's `S256` challenge for `verifier`.
    package static func challenge(for verifier: String) -> String {
        WebAuthTokens.base64URL(Array(SHA256.hash(data: Data(verifier.utf8))))
    }

    package init(key: Data) {
        self.key = key
    }
}
