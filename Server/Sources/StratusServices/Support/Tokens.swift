import Crypto
import Foundation

/// Random tokens, their hashes and their comparison: for keys, codes, receipts and session tokens.
package enum Tokens {
    /// `bytes` random bytes as unpadded base64url: receipts and courier tokens.
    package static func randomBase64URL(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return WebAuthTokens.base64URL((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// `bytes` random bytes in lowercase hexadecimal: API tokens, keys and identifiers.
    package static func randomHex(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The SHA-256 of `text` in lowercase hexadecimal.
    package static func sha256Hex(_ text: String) -> String {
        sha256Hex(bytes: Array(text.utf8))
    }

    /// The SHA-256 of `bytes` in lowercase hexadecimal.
    package static func sha256Hex(bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether two secrets are equal, in a time that does not depend on where they differ.
    package static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
