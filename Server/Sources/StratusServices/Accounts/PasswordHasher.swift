import Crypto
import Foundation
import _CryptoExtras

/// Hashes passwords with salted PBKDF2-HMAC-SHA256 and verifies them.
///
/// Hashes are self-describing (`pbkdf2-sha256$<rounds>$<salt>$<hash>`), so the cost can be raised
/// later without invalidating stored hashes.
package struct PasswordHasher: Sendable {
    /// PBKDF2 rounds for new hashes.
    package var rounds: Int

    package func hash(_ password: String) throws -> String {
        let salt = SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) }
        let derived = try derive(password, salt: salt, rounds: rounds)
        return "pbkdf2-sha256$\(rounds)$\(salt.base64EncodedString())$\(derived.base64EncodedString())"
    }

    /// Whether `password` matches `stored`, compared in constant time.
    package func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 4, parts[0] == "pbkdf2-sha256", let rounds = Int(parts[1]),
            let salt = Data(base64Encoded: parts[2]), let expected = Data(base64Encoded: parts[3]),
            let derived = try? derive(password, salt: salt, rounds: rounds)
        else { return false }
        return derived.count == expected.count && zip(derived, expected).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    private func derive(_ password: String, salt: Data, rounds: Int) throws -> Data {
        let key = try KDF.Insecure.PBKDF2.deriveKey(
            from: Data(password.utf8), salt: salt, using: .sha256, outputByteCount: 32, unsafeUncheckedRounds: rounds
        )
        return key.withUnsafeBytes { Data($0) }
    }

    package init(rounds: Int) {
        self.rounds = rounds
    }
}
