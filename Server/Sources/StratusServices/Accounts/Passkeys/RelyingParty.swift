import Crypto
import Foundation
import StratusModel

/// A container's WebAuthn relying party: its ID (the domain passkeys are bound to), its name, and the origins
/// allowed to run ceremonies for it; and the checks of Web Authentication §7.1 (registration) and §7.2
/// (authentication) that Stratus makes.
///
/// Attestation is not asked for (`attestation: "none"`): Stratus trusts the key the authenticator made, not a
/// claim about its maker, so attestation statements are not checked.
package struct RelyingParty {
    package let id: String
    package let name: String
    /// Exact origins: the server's own, `https://` + the ID, the container's `passkeyOrigins`, and its Android apps'.
    package let origins: [String]

    /// How long a ceremony's challenge is valid, in milliseconds: 5 minutes.
    package static let challengeLifetime: Int64 = 300_000

    /// The relying party of a container, as a request to `baseURL` sees it.
    package init(settings: AccountSettings, containerID: String, baseURL: String) {
        let server = URLComponents(string: baseURL)
        id = settings.passkeyRelyingPartyID ?? server?.host ?? "localhost"
        name = settings.displayName(containerID: containerID)
        var origins = settings.passkeyOrigins
        if let server, let scheme = server.scheme, let host = server.host {
            origins.append("\(scheme)://\(host)" + (server.port.map { ":\($0)" } ?? ""))
        }
        origins.append("https://" + id)
        // An Android app's origin: `android:apk-key-hash:` and the base64url SHA-256 of its signing certificate.
        for app in settings.passkeyAndroidApps {
            for fingerprint in app.sha256CertFingerprints {
                if let bytes = AccountSettingsRules.certificateFingerprint(fingerprint) {
                    origins.append("android:apk-key-hash:" + WebAuthTokens.base64URL(bytes))
                }
            }
        }
        self.origins = origins
    }

    /// A registration's checks passed: the credential to keep.
    package struct Registration {
        package var credentialID: [UInt8]
        /// The COSE key, kept as the authenticator encoded it.
        package var publicKey: [UInt8]
        package var signCount: UInt32
        package var backedUp: Bool
    }

    /// Checks a registration's client data (its challenge checked by the caller, who redeemed it) and attestation
    /// object, and returns the new credential.
    /// - Throws: `BAD_REQUEST` for data that does not parse, `AUTHENTICATION_FAILED` for a check that fails.
    package func verifyRegistration(_ clientData: ClientData, attestationObject: [UInt8], requireUserVerification: Bool) throws(ServiceError) -> Registration {
        try check(clientData, type: "webauthn.create")
        guard let object = try? CBOR.decodeWhole(attestationObject), case .text = object["fmt"], case .bytes(let bytes) = object["authData"] else {
            throw ServiceError.invalidArgument("the passkey's attestationObject is not a CBOR map with fmt and authData")
        }
        let data = try AuthenticatorData(bytes)
        try check(data, requireUserVerification: requireUserVerification)
        guard let credential = data.attestedCredential else {
            throw ServiceError.invalidArgument("the passkey's authenticatorData holds no new credential")
        }
        _ = try PasskeyPublicKey(cose: credential.publicKey)
        return Registration(credentialID: credential.credentialID, publicKey: credential.publicKey, signCount: data.signCount, backedUp: data.backedUp)
    }

    /// Checks an assertion made with `publicKey` (a COSE key) and returns its authenticator data.
    /// - Throws: `BAD_REQUEST` for data that does not parse, `AUTHENTICATION_FAILED` for a check that fails.
    package func verifyAssertion(
        _ clientData: ClientData, clientDataJSON: [UInt8], authenticatorData bytes: [UInt8], signature: [UInt8], publicKey: [UInt8],
        requireUserVerification: Bool
    ) throws(ServiceError) -> AuthenticatorData {
        try check(clientData, type: "webauthn.get")
        let data = try AuthenticatorData(bytes)
        try check(data, requireUserVerification: requireUserVerification)
        let key = try PasskeyPublicKey(cose: publicKey)
        guard key.isValidSignature(signature, for: bytes + Array(SHA256.hash(data: clientDataJSON))) else {
            throw Self.refused("the passkey's signature does not verify")
        }
        return data
    }

    private func check(_ clientData: ClientData, type: String) throws(ServiceError) {
        guard clientData.type == type else { throw Self.refused("the passkey answered a \(clientData.type) ceremony, not \(type)") }
        guard origins.contains(clientData.origin) else {
            throw Self.refused("origin \(clientData.origin) may not use passkeys of \(id); the container's passkeyOrigins list the others allowed")
        }
        guard !clientData.crossOrigin else { throw Self.refused("passkeys are not used from a frame of another origin") }
    }

    private func check(_ data: AuthenticatorData, requireUserVerification: Bool) throws(ServiceError) {
        guard data.relyingPartyIDHash == Array(SHA256.hash(data: Data(id.utf8))) else {
            throw Self.refused("the passkey belongs to another relying party than \(id)")
        }
        guard data.userPresent else { throw Self.refused("the authenticator did not see the user") }
        guard data.userVerified || !requireUserVerification else {
            throw Self.refused("the authenticator did not verify the user (biometrics or a PIN), which a passkey sign-in needs")
        }
    }

    private static func refused(_ reason: String) -> ServiceError {
        ServiceError(.authenticationFailed, reason)
    }
}
