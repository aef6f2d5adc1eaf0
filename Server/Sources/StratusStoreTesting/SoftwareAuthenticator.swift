import Crypto
import Foundation

/// An authenticator app for tests, written from RFC 6238 apart from the server's code: the six-digit code of a
/// time step for a base32 secret.
public enum SoftwareAuthenticator {
    /// The current 30-second time step.
    public static var step: Int64 { Int64(Date().timeIntervalSince1970) / 30 }

    public static func code(secret base32: String, step: Int64 = step) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        var bytes: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in base32.uppercased() {
            guard let value = alphabet.firstIndex(of: character) else { continue }
            buffer = ((buffer << 5) | value) & 0xffff
            bits += 5
            if bits >= 8 {
                bytes.append(UInt8((buffer >> (bits - 8)) & 0xff))
                bits -= 8
            }
        }
        let counter = (0..<8).map { UInt8((UInt64(step) >> (56 - 8 * UInt64($0))) & 0xff) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: counter, using: SymmetricKey(data: bytes)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let value = (Int(mac[offset]) & 0x7f) << 24 | Int(mac[offset + 1]) << 16 | Int(mac[offset + 2]) << 8 | Int(mac[offset + 3])
        return String(format: "%06d", value % 1_000_000)
    }
}
