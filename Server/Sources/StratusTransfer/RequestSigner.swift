import Crypto
import Foundation

/// Signs requests with a CloudKit server-to-server key (`docs/protocol.md#server-to-server-keys`): ECDSA P-256 with SHA-256
/// over `date:base64(sha256(body)):subpath`, sent in the `X-Apple-CloudKit-Request-*` headers.
public struct RequestSigner: Sendable {
    public let keyID: String
    /// The private key's raw bytes (the key type itself is not `Sendable`).
    private let rawKey: Data

    /// - Parameter pem: the private key as `openssl ecparam -name prime256v1 -genkey` or CloudKit's console
    ///   writes it (`EC PRIVATE KEY`, with or without its `EC PARAMETERS` block), or as PKCS#8 (`PRIVATE KEY`).
    public init(keyID: String, privateKeyPEM pem: String) throws {
        guard let block = Self.privateKeyBlock(in: pem) else {
            throw TransferError("the key file holds no private key (a PEM block \"EC PRIVATE KEY\" or \"PRIVATE KEY\")")
        }
        do {
            rawKey = try P256.Signing.PrivateKey(pemRepresentation: block).rawRepresentation
        } catch {
            throw TransferError("the key file's private key is not a P-256 (prime256v1) key: \(error)")
        }
        self.keyID = keyID
    }

    /// The headers that sign a request for `subpath` (the URL's path, `/database/1/...`) with `body`.
    public func headers(subpath: String, body: Data, date: Date = Date()) -> [String: String] {
        let dateText = date.formatted(.iso8601)
        let hash = Data(SHA256.hash(data: body)).base64EncodedString()
        let message = Data("\(dateText):\(hash):\(subpath)".utf8)
        // The raw bytes came from a valid key.
        let key = try! P256.Signing.PrivateKey(rawRepresentation: rawKey)
        let signature = (try? key.signature(for: message).derRepresentation) ?? Data()
        return [
            "X-Apple-CloudKit-Request-KeyID": keyID,
            "X-Apple-CloudKit-Request-ISO8601Date": dateText,
            "X-Apple-CloudKit-Request-SignatureV1": signature.base64EncodedString(),
        ]
    }

    /// The private key's PEM block, without the `EC PARAMETERS` block some tools write before it.
    private static func privateKeyBlock(in pem: String) -> String? {
        for label in ["EC PRIVATE KEY", "PRIVATE KEY"] {
            let begin = "-----BEGIN \(label)-----", end = "-----END \(label)-----"
            if let start = pem.range(of: begin), let stop = pem.range(of: end, range: start.upperBound..<pem.endIndex) {
                return String(pem[start.lowerBound..<stop.upperBound])
            }
        }
        return nil
    }
}
