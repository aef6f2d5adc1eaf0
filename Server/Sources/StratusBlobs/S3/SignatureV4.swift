import Crypto
import NIOCore
import Foundation

/// AWS Signature Version 4 for S3 requests (header-based, with the payload's SHA-256 in
/// `x-amz-content-sha256`), as in AWS's "Signature Version 4 signing process".
struct SignatureV4: Sendable {
    var accessKey: String
    var secretKey: String
    var region: String
    var service = "s3"

    /// A request to sign: the path as sent (already percent-encoded), query items, headers that are signed.
    struct Request {
        var method: String
        /// Percent-encoded, starting with `/`.
        var path: String
        var query: [(String, String)] = []
        /// Lowercased names; `host` must be among them.
        var headers: [String: String]
        /// Hex SHA-256 of the body.
        var payloadHash: String
    }

    /// The headers to add: `x-amz-date`, `x-amz-content-sha256` and `authorization`.
    func sign(_ request: Request, at date: Date) -> [String: String] {
        let (amzDate, day) = Self.timestamps(date)
        var headers = request.headers
        headers["x-amz-date"] = amzDate
        headers["x-amz-content-sha256"] = request.payloadHash
        let names = headers.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(headers[$0]!.trimmingCharacters(in: .whitespaces))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = [
            request.method, request.path, Self.canonicalQuery(request.query), canonicalHeaders, signedHeaders, request.payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))].joined(separator: "\n")
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: signingKey(day: day)))
        return [
            "x-amz-date": amzDate,
            "x-amz-content-sha256": request.payloadHash,
            "authorization": "AWS4-HMAC-SHA256 Credential=\(accessKey)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)",
        ]
    }

    private func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Data("AWS4\(secretKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return key
    }

    /// `yyyyMMdd'T'HHmmss'Z'` and `yyyyMMdd`, in UTC.
    static func timestamps(_ date: Date) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let day = String(format: "%04d%02d%02d", parts.year!, parts.month!, parts.day!)
        return (day + String(format: "T%02d%02d%02dZ", parts.hour!, parts.minute!, parts.second!), day)
    }

    static func canonicalQuery(_ items: [(String, String)]) -> String {
        items.map { (encode($0.0), encode($0.1)) }.sorted { $0 < $1 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// Percent-encodes everything but unreserved characters (RFC 3986), and `/` when `keepingSlashes`.
    static func encode(_ text: String, keepingSlashes: Bool = false) -> String {
        var output = ""
        for byte in text.utf8 {
            if byte.isASCIILetterOrDigit || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
                || byte == UInt8(ascii: "~") || (keepingSlashes && byte == UInt8(ascii: "/"))
            {
                output.append(Character(UnicodeScalar(byte)))
            } else {
                output += String(format: "%%%02X", byte)
            }
        }
        return output
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func hex(_ digest: some Digest) -> String { hex(Array(digest)) }
    static func hex(_ code: HashedAuthenticationCode<SHA256>) -> String { hex(Array(code)) }

    /// Hex SHA-256 of `bytes`.
    static func payloadHash(_ bytes: [UInt8]) -> String { hex(SHA256.hash(data: bytes)) }

    /// The payload hash of a buffer's readable bytes, without copying them.
    static func payloadHash(_ buffer: ByteBuffer) -> String {
        buffer.withUnsafeReadableBytes { hex(SHA256.hash(data: $0)) }
    }
}
