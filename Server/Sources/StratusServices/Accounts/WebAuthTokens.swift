import Crypto
import Foundation

/// Issues and checks web auth tokens: `v1.<session>.<userRecordName>.<expiry>.<signature>`.
///
/// The HMAC signature lets a server reject forged or expired tokens without touching storage; the
/// session named in the token is then checked against ``SessionCache``, so a signed-out token fails.
package struct WebAuthTokens: Sendable {
    /// The HMAC key's bytes.
    package let key: Data

    package struct Claims: Sendable, Hashable {
        package var sessionID: String
        package var userRecordName: String
        /// Milliseconds since 1970.
        package var expiresAt: Int64

        package init(sessionID: String, userRecordName: String, expiresAt: Int64) {
            self.sessionID = sessionID
            self.userRecordName = userRecordName
            self.expiresAt = expiresAt
        }
    }

    package func issue(_ claims: Claims, containerID: String) -> String {
        let payload = "v1.\(claims.sessionID).\(claims.userRecordName).\(claims.expiresAt)"
        return payload + "." + signature(payload, containerID: containerID)
    }

    /// The token's claims, if it is well formed, signed by this server for this container, and not expired.
    package func verify(_ token: String, containerID: String, now: Int64) -> Claims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "v1", let expiresAt = Int64(parts[3]) else { return nil }
        let payload = parts[0..<4].joined(separator: ".")
        let expected = signature(payload, containerID: containerID)
        guard expected.utf8.count == parts[4].utf8.count,
            zip(expected.utf8, parts[4].utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0
        else { return nil }
        guard expiresAt > now else { return nil }
        return Claims(sessionID: String(parts[1]), userRecordName: String(parts[2]), expiresAt: expiresAt)
    }

    private func signature(_ payload: String, containerID: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data((containerID + "|" + payload).utf8), using: SymmetricKey(data: key))
        return Self.base64URL(Array(mac))
    }

    /// Unpadded base64url (RFC 4648 §5).
    package static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index + 2 < bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)], alphabet[Int(value >> 6 & 63)], alphabet[Int(value & 63)]]
            index += 3
        }
        let remaining = bytes.count - index
        if remaining > 0 {
            var value = UInt32(bytes[index]) << 16
            if remaining == 2 { value |= UInt32(bytes[index + 1]) << 8 }
            output += [alphabet[Int(value >> 18 & 63)], alphabet[Int(value >> 12 & 63)]]
            if remaining == 2 { output.append(alphabet[Int(value >> 6 & 63)]) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of unpadded base64url text; `nil` for anything else.
    package static func bytes(base64URL text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }

    package init(key: Data) {
        self.key = key
    }
}
