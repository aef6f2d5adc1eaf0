import Foundation

/// What the browser or platform says about a WebAuthn ceremony (`clientDataJSON`, Web Authentication §5.8.1): its
/// type, the challenge the authenticator answered, and the origin that asked.
package struct ClientData {
    /// `webauthn.create` for a registration, `webauthn.get` for a sign-in.
    package var type: String
    /// The challenge, base64url without padding, as the server issued it.
    package var challenge: String
    /// The web origin (`https://example.com`) or app origin (`android:apk-key-hash:…`) of the caller.
    package var origin: String
    /// Whether the ceremony ran in a frame of another origin.
    package var crossOrigin: Bool

    /// Reads `clientDataJSON`.
    /// - Throws: `BAD_REQUEST` when it is not a JSON object with a type, a challenge and an origin.
    package init(_ bytes: [UInt8]) throws(ServiceError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let type = object["type"] as? String, let challenge = object["challenge"] as? String, let origin = object["origin"] as? String
        else {
            throw ServiceError.invalidArgument("the passkey's clientDataJSON is not a JSON object with a type, a challenge and an origin")
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
        crossOrigin = object["crossOrigin"] as? Bool ?? false
    }
}
