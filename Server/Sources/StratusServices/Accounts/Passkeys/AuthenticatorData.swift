/// The authenticator data every WebAuthn ceremony signs (Web Authentication §6.1): the hash of the relying party
/// ID, flags, the signature counter and, at registration, the new credential.
package struct AuthenticatorData {
    /// A credential created at registration.
    package struct AttestedCredential {
        package var credentialID: [UInt8]
        /// The COSE key, as the authenticator encoded it.
        package var publicKey: [UInt8]
    }

    package var relyingPartyIDHash: [UInt8]
    package var flags: UInt8
    package var signCount: UInt32
    package var attestedCredential: AttestedCredential?

    /// The user touched or otherwise acknowledged the authenticator.
    package var userPresent: Bool { flags & 0x01 != 0 }
    /// The authenticator checked who the user is (biometrics, a PIN).
    package var userVerified: Bool { flags & 0x04 != 0 }
    /// The credential is backed up (synced), so it outlives this device.
    package var backedUp: Bool { flags & 0x10 != 0 }

    /// Credential IDs longer than this are refused (WebAuthn Level 3 caps them at 1023 bytes).
    package static let maximumCredentialIDLength = 1023

    /// Reads authenticator data, refusing anything truncated, trailing or inconsistent with its flags.
    package init(_ bytes: [UInt8]) throws(ServiceError) {
        guard bytes.count >= 37 else { throw Self.malformed("has fewer than 37 bytes") }
        relyingPartyIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var offset = 37
        if flags & 0x40 != 0 {
            guard bytes.count >= offset + 18 else { throw Self.malformed("ends inside the attested credential") }
            let length = Int(bytes[offset + 16]) << 8 | Int(bytes[offset + 17])
            offset += 18
            guard length > 0, length <= Self.maximumCredentialIDLength, bytes.count >= offset + length else {
                throw Self.malformed("has a credential ID of a wrong length")
            }
            let credentialID = Array(bytes[offset..<offset + length])
            offset += length
            let end: Int
            do {
                end = try CBOR.decode(bytes, from: offset).end
            } catch {
                throw Self.malformed("holds a public key that is not CBOR: \(error.reason)")
            }
            attestedCredential = AttestedCredential(credentialID: credentialID, publicKey: Array(bytes[offset..<end]))
            offset = end
        }
        if flags & 0x80 != 0 {
            do {
                offset = try CBOR.decode(bytes, from: offset).end
            } catch {
                throw Self.malformed("holds extensions that are not CBOR: \(error.reason)")
            }
        }
        guard offset == bytes.count else { throw Self.malformed("has \(bytes.count - offset) bytes after its end") }
    }

    private static func malformed(_ reason: String) -> ServiceError {
        ServiceError.invalidArgument("the passkey's authenticatorData " + reason)
    }
}
