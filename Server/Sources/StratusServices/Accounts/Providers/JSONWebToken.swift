import Foundation
import StratusModel

/// A JSON Web Token as it arrives (RFC 7519): its header's algorithm and key ID, its claims, and the signature over
/// `header.payload`, none of it checked yet (``IDTokenVerifier`` checks).
package struct JSONWebToken {
    package let algorithm: String
    package let keyID: String?
    package let claims: [String: JSONValue]
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
            let header = try? JSONDecoder().decode([String: JSONValue].self, from: Data(headerBytes)),
            let claims = try? JSONDecoder().decode([String: JSONValue].self, from: Data(payloadBytes)),
            let algorithm = header["alg"]?.stringValue
        else {
            throw ServiceError(.authenticationFailed, "the identity token is not a JSON Web Token")
        }
        self.algorithm = algorithm
        keyID = header["kid"]?.stringValue
        self.claims = claims
        signedPart = Array((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
    }

    package func string(_ claim: String) -> String? { claims[claim]?.stringValue }

    /// A time claim (`exp`, `iat`) in seconds since 1970.
    package func seconds(_ claim: String) -> Int64? {
        switch claims[claim] {
        case .integer(let seconds): seconds
        case .double(let seconds) where seconds.isFinite && abs(seconds) < 1e15: Int64(seconds)
        default: nil
        }
    }

    /// A flag that providers write as a boolean or as the text `"true"`/`"false"` (Apple does both).
    package func flag(_ claim: String) -> Bool {
        switch claims[claim] {
        case .bool(let flag): flag
        case .string(let text): text == "true"
        case .integer(let number): number != 0
        default: false
        }
    }

    /// The audiences: `aud` as one string or an array of them.
    package var audiences: [String] {
        switch claims["aud"] {
        case .string(let one): [one]
        case .array(let many): many.compactMap(\.stringValue)
        default: []
        }
    }
}
