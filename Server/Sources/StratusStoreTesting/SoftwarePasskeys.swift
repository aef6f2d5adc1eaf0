import Crypto
import Foundation
import StratusModel

/// A passkey authenticator for tests, written from the WebAuthn specification apart from the server's code: it
/// makes P-256 credentials and signs assertions as a platform authenticator would, and can be told to misbehave
/// (another origin, relying party or ceremony type, no user verification, a counter that goes back).
public final class SoftwarePasskeys: @unchecked Sendable {
    /// A credential the authenticator holds.
    public struct Credential {
        public let id: [UInt8]
        public let key: P256.Signing.PrivateKey
        public let relyingPartyID: String
        public let userHandle: [UInt8]
        public var counter: UInt32
    }

    /// What a ceremony's answer should get wrong, for tests of the server's checks.
    public struct Tampering {
        public var origin: String?
        public var type: String?
        public var relyingPartyID: String?
        public var challenge: String?
        public var userVerified = true
        public var userPresent = true
        public var counter: UInt32?
        public var signWithOtherKey = false

        public init(
            origin: String? = nil, type: String? = nil, relyingPartyID: String? = nil, challenge: String? = nil, userVerified: Bool = true,
            userPresent: Bool = true, counter: UInt32? = nil, signWithOtherKey: Bool = false
        ) {
            self.origin = origin
            self.type = type
            self.relyingPartyID = relyingPartyID
            self.challenge = challenge
            self.userVerified = userVerified
            self.userPresent = userPresent
            self.counter = counter
            self.signWithOtherKey = signWithOtherKey
        }
    }

    /// The origin the authenticator's client reports (`https://example.com`, or the server's address in tests).
    public let origin: String
    /// Whether credentials keep a signature counter (security keys do; synced passkeys send 0).
    public let keepsCounter: Bool
    public private(set) var credentials: [Credential] = []

    public init(origin: String, keepsCounter: Bool = true) {
        self.origin = origin
        self.keepsCounter = keepsCounter
    }

    /// What `navigator.credentials.create` answers, as bytes.
    public struct MadeCredential {
        public let credentialID: [UInt8]
        public let clientDataJSON: [UInt8]
        public let attestationObject: [UInt8]
    }

    /// What `navigator.credentials.get` answers, as bytes.
    public struct Signature {
        public let credentialID: [UInt8]
        public let clientDataJSON: [UInt8]
        public let authenticatorData: [UInt8]
        public let signature: [UInt8]
        public let userHandle: [UInt8]
    }

    /// Makes a credential for `options` and answers as `navigator.credentials.create` would.
    public func register(_ options: PasskeyCreationOptions, tampering: Tampering = Tampering()) -> PasskeyRegistration {
        let made = register(relyingPartyID: options.rp.id, challenge: Self.bytes(options.challenge), userHandle: Self.bytes(options.user.id), tampering: tampering)
        return PasskeyRegistration(
            id: Self.base64URL(made.credentialID), clientDataJSON: Self.base64URL(made.clientDataJSON), attestationObject: Self.base64URL(made.attestationObject)
        )
    }

    /// Makes a credential for a relying party and user.
    public func register(relyingPartyID: String, challenge: [UInt8], userHandle: [UInt8], tampering: Tampering = Tampering()) -> MadeCredential {
        let credential = Credential(
            id: (0..<16).map { _ in UInt8.random(in: 0...255) }, key: P256.Signing.PrivateKey(), relyingPartyID: relyingPartyID,
            userHandle: userHandle, counter: 0
        )
        credentials.append(credential)
        let point = Array(credential.key.publicKey.x963Representation)
        let coseKey = MiniCBOR.map([
            (MiniCBOR.integer(1), MiniCBOR.integer(2)), (MiniCBOR.integer(3), MiniCBOR.integer(-7)), (MiniCBOR.integer(-1), MiniCBOR.integer(1)),
            (MiniCBOR.integer(-2), MiniCBOR.bytes(Array(point[1..<33]))), (MiniCBOR.integer(-3), MiniCBOR.bytes(Array(point[33..<65]))),
        ])
        var attested = [UInt8](repeating: 0, count: 16) + [UInt8(credential.id.count >> 8), UInt8(credential.id.count & 0xff)] + credential.id
        attested += coseKey
        let data = authenticatorData(relyingPartyID, tampering, counter: 0, extraFlags: 0x40) + attested
        let attestation = MiniCBOR.map([
            (MiniCBOR.text("fmt"), MiniCBOR.text("none")), (MiniCBOR.text("attStmt"), MiniCBOR.map([])),
            (MiniCBOR.text("authData"), MiniCBOR.bytes(data)),
        ])
        let client = clientData(type: tampering.type ?? "webauthn.create", challenge: tampering.challenge ?? Self.base64URL(challenge), tampering)
        return MadeCredential(credentialID: credential.id, clientDataJSON: client, attestationObject: attestation)
    }

    /// Signs `options`' challenge with a credential it allows (any of the relying party's when it lists none) and
    /// answers as `navigator.credentials.get` would; `nil` when the authenticator holds no such credential.
    public func assert(_ options: PasskeyRequestOptions, tampering: Tampering = Tampering()) -> PasskeyAssertion? {
        guard let made = sign(
            relyingPartyID: options.rpId, challenge: Self.bytes(options.challenge), allowing: options.allowCredentials.map { Self.bytes($0.id) },
            tampering: tampering
        ) else { return nil }
        return PasskeyAssertion(
            id: Self.base64URL(made.credentialID), clientDataJSON: Self.base64URL(made.clientDataJSON),
            authenticatorData: Self.base64URL(made.authenticatorData), signature: Self.base64URL(made.signature),
            userHandle: Self.base64URL(made.userHandle)
        )
    }

    /// Signs a challenge with the newest credential of the relying party among `allowing` (any when empty).
    public func sign(relyingPartyID: String, challenge: [UInt8], allowing: [[UInt8]] = [], tampering: Tampering = Tampering()) -> Signature? {
        guard let index = credentials.lastIndex(where: { $0.relyingPartyID == relyingPartyID && (allowing.isEmpty || allowing.contains($0.id)) }) else {
            return nil
        }
        if keepsCounter { credentials[index].counter += 1 }
        let credential = credentials[index]
        let data = authenticatorData(relyingPartyID, tampering, counter: tampering.counter ?? credential.counter, extraFlags: 0)
        let client = clientData(type: tampering.type ?? "webauthn.get", challenge: tampering.challenge ?? Self.base64URL(challenge), tampering)
        let key = tampering.signWithOtherKey ? P256.Signing.PrivateKey() : credential.key
        let signature = try! key.signature(for: Data(data + Array(SHA256.hash(data: client)))).derRepresentation
        return Signature(
            credentialID: credential.id, clientDataJSON: client, authenticatorData: data, signature: Array(signature), userHandle: credential.userHandle
        )
    }

    private func authenticatorData(_ relyingPartyID: String, _ tampering: Tampering, counter: UInt32, extraFlags: UInt8) -> [UInt8] {
        var flags = extraFlags | (keepsCounter ? 0 : 0x18)
        if tampering.userPresent { flags |= 0x01 }
        if tampering.userVerified { flags |= 0x04 }
        let hash = Array(SHA256.hash(data: Data((tampering.relyingPartyID ?? relyingPartyID).utf8)))
        return hash + [flags] + [UInt8(counter >> 24), UInt8(counter >> 16 & 0xff), UInt8(counter >> 8 & 0xff), UInt8(counter & 0xff)]
    }

    private func clientData(type: String, challenge: String, _ tampering: Tampering) -> [UInt8] {
        let object: [String: Any] = ["type": type, "challenge": challenge, "origin": tampering.origin ?? origin, "crossOrigin": false]
        return Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    public static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func bytes(_ base64URL: String) -> [UInt8] {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Array(Data(base64Encoded: text) ?? Data())
    }
}

/// The few CBOR encodings an authenticator writes (RFC 8949, definite lengths).
enum MiniCBOR {
    static func head(_ major: UInt8, _ value: UInt64) -> [UInt8] {
        switch value {
        case 0..<24: return [major << 5 | UInt8(value)]
        case 24..<256: return [major << 5 | 24, UInt8(value)]
        case 256..<65536: return [major << 5 | 25, UInt8(value >> 8), UInt8(value & 0xff)]
        default: return [major << 5 | 26] + (0..<4).map { UInt8(value >> (24 - 8 * UInt64($0)) & 0xff) }
        }
    }

    static func integer(_ value: Int64) -> [UInt8] { value >= 0 ? head(0, UInt64(value)) : head(1, UInt64(-1 - value)) }
    static func bytes(_ value: [UInt8]) -> [UInt8] { head(2, UInt64(value.count)) + value }
    static func text(_ value: String) -> [UInt8] { head(3, UInt64(value.utf8.count)) + Array(value.utf8) }
    static func map(_ entries: [([UInt8], [UInt8])]) -> [UInt8] { head(5, UInt64(entries.count)) + entries.flatMap { $0.0 + $0.1 } }
}
