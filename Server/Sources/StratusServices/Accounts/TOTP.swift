import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238): six digits from HMAC-SHA1 of the 30-second time step, as
/// authenticator apps make them from a secret shared as an `otpauth://` URI.
package enum TOTP {
    package static let period: Int64 = 30
    package static let digits = 6

    /// The code of time step `step` for `secret`.
    package static func code(secret: [UInt8], step: Int64) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0f)
        let binary = (UInt32(mac[offset] & 0x7f) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        return String(format: "%06d", binary % 1_000_000)
    }

    /// The time step of `date`.
    package static func step(at date: Date = Date()) -> Int64 {
        Int64(date.timeIntervalSince1970) / period
    }

    /// The step, among the current one and one either side (clocks drift), whose code `code` is; `nil` when none.
    package static func matchingStep(_ code: String, secret: [UInt8], at date: Date = Date()) -> Int64? {
        let typed = code.filter { !$0.isWhitespace }
        guard typed.count == digits, typed.allSatisfy(\.isNumber) else { return nil }
        let now = step(at: date)
        return [now - 1, now, now + 1].first { Tokens.constantTimeEquals(self.code(secret: secret, step: $0), typed) }
    }

    /// The URI an authenticator app reads from a QR code.
    package static func uri(secret: [UInt8], issuer: String, account: String) -> String {
        let label = (issuer + ":" + account).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: ":/?#"))) ?? account
        let issuerQuery = issuer.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? issuer
        return "otpauth://totp/\(label)?secret=\(Base32.encode(secret))&issuer=\(issuerQuery)&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }
}

/// Base32 (RFC 4648) without padding, as `otpauth://` secrets are written.
package enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")

    package static func encode(_ bytes: [UInt8]) -> String {
        var output = ""
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 31)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 31)]) }
        return output
    }

    /// The bytes of base32 text (any case, spaces and padding ignored); `nil` for other characters.
    package static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased() where character != "=" && !character.isWhitespace {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> UInt32(bits - 8)) & 0xff))
                bits -= 8
            }
        }
        return output
    }
}
