import Crypto

/// A passkey's public key: a COSE key (RFC 9053) of type EC2 on P-256 for ES256 signatures, the one algorithm
/// Stratus asks authenticators for.
package struct PasskeyPublicKey {
    /// COSE's number for ES256 (ECDSA with SHA-256 on P-256).
    package static let es256: Int64 = -7

    package let key: P256.Signing.PublicKey

    /// Reads a COSE key.
    /// - Throws: `BAD_REQUEST` for anything but an ES256 key on P-256 whose point is on the curve.
    package init(cose bytes: [UInt8]) throws(ServiceError) {
        guard let map = try? CBOR.decodeWhole(bytes) else { throw ServiceError.invalidArgument("the passkey's public key is not a COSE key") }
        guard map[1]?.integer == 2, map[3]?.integer == Self.es256, map[-1]?.integer == 1,
            case .bytes(let x) = map[-2], case .bytes(let y) = map[-3], x.count == 32, y.count == 32
        else {
            throw ServiceError.invalidArgument("the passkey's public key is not an ES256 key on P-256 (COSE kty 2, alg -7, crv 1); Stratus accepts only those")
        }
        do {
            key = try P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
        } catch {
            throw ServiceError.invalidArgument("the passkey's public key is not a point on P-256")
        }
    }

    /// Whether `signature` (ASN.1 DER, as WebAuthn carries ECDSA signatures) signs `message` with this key.
    package func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: message)
    }
}
