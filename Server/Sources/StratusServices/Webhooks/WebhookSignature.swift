import Crypto
import Foundation

/// Standard Webhooks 1.0 signatures: `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, one
/// per secret (two during a rotation, space-separated), with secrets written `whsec_` + base64.
package enum WebhookSignature {
    /// A new secret: 32 random bytes.
    package static func newSecret() -> String {
        "whsec_" + SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// The header's value for `body` sent as event `id` at `timestamp` (seconds since 1970).
    package static func header(id: String, timestamp: Int64, body: String, secrets: [String]) -> String {
        secrets.compactMap { secret -> String? in
            guard let key = Data(base64Encoded: secret.hasPrefix("whsec_") ? String(secret.dropFirst(6)) : secret) else { return nil }
            let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).\(body)".utf8), using: SymmetricKey(data: key))
            return "v1," + Data(mac).base64EncodedString()
        }.joined(separator: " ")
    }
}
