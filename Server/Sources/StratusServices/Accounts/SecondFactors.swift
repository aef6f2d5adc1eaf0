import Crypto
import Foundation
import StratusStore

/// The keys and tokens of second factors: TOTP secrets sealed (AES-GCM) before they reach the store, recovery
/// codes made and hashed, and the short-lived tokens that carry a first factor over to the second.
package struct SecondFactors: Sendable {
    /// Seals TOTP secrets and signs pending sign-in tokens.
    package let key: Data
    /// How long a pending sign-in token is valid, in milliseconds: 5 minutes.
    package static let pendingLifetime: Int64 = 300_000
    package static let recoveryCodeCount = 10

    /// What a pending sign-in token allows.
    package enum Purpose: String {
        /// Signing in with a second factor.
        case verify
        /// Setting one up, where the container requires one.
        case setup
    }

    /// A pending sign-in: whose, for what, until when.
    package struct Pending {
        package var containerID: String
        package var userRecordName: String
        package var purpose: Purpose
    }

    package func seal(_ secret: [UInt8]) throws -> String {
        guard let combined = try AES.GCM.seal(Data(secret), using: SymmetricKey(data: key)).combined else {
            throw ServiceError.failed(StorageError(.internalFailure, "a secret could not be sealed"))
        }
        return combined.base64EncodedString()
    }

    package func open(_ sealed: String) -> [UInt8]? {
        guard let data = Data(base64Encoded: sealed), let box = try? AES.GCM.SealedBox(combined: data),
            let opened = try? AES.GCM.open(box, using: SymmetricKey(data: key))
        else { return nil }
        return Array(opened)
    }

    /// A token proving the first factor of `user` for `purpose`, valid ``pendingLifetime``.
    package func pendingToken(containerID: String, userRecordName: String, purpose: Purpose, now: Int64 = ServerClock.now()) -> String {
        let payload = WebAuthTokens.base64URL(Array("\(purpose.rawValue)|\(now + Self.pendingLifetime)|\(userRecordName)|\(containerID)".utf8))
        return payload + "." + mac(payload)
    }

    /// The pending sign-in a token proves, if its signature holds and it has not expired.
    package func pending(_ token: String, containerID: String, now: Int64 = ServerClock.now()) -> Pending? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, Tokens.constantTimeEquals(mac(parts[0]), parts[1]),
            let bytes = WebAuthTokens.bytes(base64URL: parts[0])
        else { return nil }
        let fields = String(decoding: bytes, as: UTF8.self).split(separator: "|", maxSplits: 3).map(String.init)
        guard fields.count == 4, let purpose = Purpose(rawValue: fields[0]), let expires = Int64(fields[1]), expires > now,
            fields[3] == containerID
        else { return nil }
        return Pending(containerID: containerID, userRecordName: fields[2], purpose: purpose)
    }

    private func mac(_ payload: String) -> String {
        WebAuthTokens.base64URL(Array(HMAC<SHA256>.authenticationCode(for: Data(("second-factor|" + payload).utf8), using: SymmetricKey(data: key))))
    }

    /// Fresh recovery codes (`xxxxx-xxxxx`, letters and digits that are hard to mix up).
    package static func makeRecoveryCodes() -> [String] {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return (0..<recoveryCodeCount).map { _ in
            let characters = (0..<10).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
            return String(characters[0..<5]) + "-" + String(characters[5...])
        }
    }

    /// A recovery code as hashed: lowercase, without the dash or spaces.
    package static func normalizedRecoveryCode(_ code: String) -> String {
        code.lowercased().filter { $0.isLetter || $0.isNumber }
    }

    package init(key: Data) {
        self.key = key
    }
}
