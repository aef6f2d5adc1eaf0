import Crypto
import Foundation
import _CryptoExtras

/// Checks an OpenID Connect ID token (Sign in with Apple's identity token is one): a signature by the provider's
/// published key with an asymmetric algorithm (RS256 or ES256; `none` and HMAC are refused whatever the header
/// says), the issuer, an audience among the expected ones, the expiry and issue time with a minute of skew, and the
/// nonce's SHA-256.
package struct IDTokenVerifier: Sendable {
    package let keys: ProviderKeys
    /// Clock skew allowed on `exp` and `iat`, in seconds.
    package static let skew: Int64 = 60

    /// What a token must say.
    package struct Expectation {
        package var issuer: String
        package var audiences: [String]
        package var keysURL: String
        /// The raw nonce the client used: the token's `nonce` claim must be its SHA-256 in hexadecimal.
        package var rawNonce: String?
        /// The nonce the server itself sent the provider (the web flow): the token's `nonce` claim must be it.
        package var sentNonce: String?

        package init(issuer: String, audiences: [String], keysURL: String, rawNonce: String? = nil, sentNonce: String? = nil) {
            self.issuer = issuer
            self.audiences = audiences
            self.keysURL = keysURL
            self.rawNonce = rawNonce
            self.sentNonce = sentNonce
        }
    }

    /// What a checked token says about the user.
    package struct Identity {
        package var subject: String
        package var emailAddress: String?
        package var isEmailVerified: Bool
        package var isPrivateEmail: Bool
        /// Seconds since 1970.
        package var expiresAt: Int64
        package var nonce: String?
        /// The expected audience the token is for: the client ID that signed the user in.
        package var audience: String
    }

    /// Checks `token` against `expected`.
    /// - Throws: `AUTHENTICATION_FAILED` naming the check that failed.
    package func verify(_ token: String, _ expected: Expectation, now: Int64 = ServerClock.now() / 1000) async throws -> Identity {
        let jwt = try await verifiedToken(token, expected, now: now)
        guard let subject = jwt.string("sub"), !subject.isEmpty else { throw ServiceError(.authenticationFailed, "the identity token names no user (sub)") }
        if let raw = expected.rawNonce {
            guard jwt.string("nonce") == Tokens.sha256Hex(raw) else {
                throw ServiceError(.authenticationFailed, "the identity token's nonce is not the SHA-256 of the nonce given")
            }
        }
        if let sent = expected.sentNonce, jwt.string("nonce") != sent {
            throw ServiceError(.authenticationFailed, "the ID token's nonce is not the one this sign-in sent")
        }
        let email = jwt.string("email").map { $0.lowercased() }
        return Identity(
            subject: subject, emailAddress: email, isEmailVerified: email != nil && jwt.flag("email_verified"),
            isPrivateEmail: jwt.flag("is_private_email"), expiresAt: jwt.seconds("exp") ?? now, nonce: jwt.string("nonce"),
            audience: jwt.audiences.first(where: expected.audiences.contains) ?? ""
        )
    }

    /// A token whose signature, issuer, audience and times are checked (any signed provider message: an ID token,
    /// or Apple's server-to-server notifications).
    /// - Throws: `AUTHENTICATION_FAILED` naming the check that failed.
    package func verifiedToken(_ token: String, _ expected: Expectation, now: Int64 = ServerClock.now() / 1000) async throws -> JSONWebToken {
        let jwt = try JSONWebToken(token)
        guard ["RS256", "ES256"].contains(jwt.algorithm) else {
            throw ServiceError(.authenticationFailed, "the identity token's algorithm \(jwt.algorithm) is not accepted (RS256 or ES256 only)")
        }
        guard let keyID = jwt.keyID else { throw ServiceError(.authenticationFailed, "the identity token names no key (kid)") }
        let key = try await keys.key(keyID, at: expected.keysURL)
        guard Self.isValid(jwt, key: key) else { throw ServiceError(.authenticationFailed, "the identity token's signature does not verify") }
        guard jwt.string("iss") == expected.issuer else {
            throw ServiceError(.authenticationFailed, "the identity token was issued by \(jwt.string("iss") ?? "nobody"), not \(expected.issuer)")
        }
        guard jwt.audiences.contains(where: expected.audiences.contains) else {
            throw ServiceError(.authenticationFailed, "the identity token is for \(jwt.audiences.joined(separator: ", ")), not one of this container's client IDs")
        }
        guard (jwt.seconds("exp").map { $0 + Self.skew > now }) == true else {
            throw ServiceError(.authenticationFailed, "the identity token has expired")
        }
        if let issuedAt = jwt.seconds("iat"), issuedAt - Self.skew > now {
            throw ServiceError(.authenticationFailed, "the identity token was issued in the future")
        }
        return jwt
    }

    private static func isValid(_ jwt: JSONWebToken, key: ProviderKeys.Key) -> Bool {
        switch (jwt.algorithm, key) {
        case ("RS256", .rsa(let key)):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: jwt.signature), for: jwt.signedPart, padding: .insecurePKCS1v1_5)
        case ("ES256", .p256(let key)):
            guard jwt.signature.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jwt.signature) else { return false }
            return key.isValidSignature(signature, for: jwt.signedPart)
        default:
            return false
        }
    }

    package init(keys: ProviderKeys) {
        self.keys = keys
    }
}
