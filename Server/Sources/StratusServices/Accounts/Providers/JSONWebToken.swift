import Foundation

/// A JSON Web Token as it arrives (RFC 7519): its header's algorithm and key ID, its claims, and the signature over
/// `header.payload`, none of it checked yet (``IDTokenVerifier`` checks).
package struct JSONWebToken {
    package let algorithm: String
    package let keyID: String?
    package let claims: [String: Any]
    /// The bytes the signature covers: the first two parts as they arrived.
    package let signedPart: [UInt8]
    package let signature: [UInt8]

    /// Reads a token in the compact form: three base64url parts separated by dots.
    /// - Throws: `AUTHENTICATION_FAILED` for anything else.
    package init(_ token: String) throws(ServiceError) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, token.utf8.count <= 16 * 1024,
            let headerBytes = WebAuthTokens.bytes(base64URL: parts[0]), let payloadBytes = WebAuthTokens.bytes(base64URL: parts[1]),
            let signature = WebAuthTokens.bytes(base64URL: parts[2]),
            let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any],
            let claims = try? JSONSerialization.jsonObject(with: Data(payloadBytes)) as? [String: Any],
            let algorithm = header["alg"] as? String
        else {
            throw ServiceError(.authenticationFailed, "the identity token is not a JSON Web Token")
        }
        self.algorithm = algorithm
        keyID = header["kid"] as? String
        self.claims = claims
        signedPart = Array((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
    }

    package func string(_ claim: String) -> String? { claims[claim] as? String }

    /// A time claim (`exp`, `iat`) in seconds since 1970.
    package func seconds(_ claim: String) -> Int64? {
        (claims[claim] as? NSNumber).map { $0.int64Value }
    }

    /// A flag that providers write as a boolean or as the text `"true"`/`"false"` (Apple does both).
    package func flag(_ claim: String) -> Bool {
        if let number = claims[claim] as? NSNumber { return number.boolValue }
        return (claims[claim] as? String) == "true"
    }

    /// The audiences: `aud` as one string or an array of them.
    package var audiences: [String] {
        if let one = claims["aud"] as? String { return [one] }
        return (claims["aud"] as? [Any])?.compactMap { $0 as? String } ?? []
    }
}
