import Crypto
import Foundation
import StratusModel
import StratusStore

/// Signs and checks the URLs of asset uploads (`/assets/1/upload/<token>`) and downloads
/// (`/assets/1/download/<token>`).
///
/// A token is `<claims>.<signature>`: base64url JSON claims and their HMAC-SHA256 under a key every
/// server node shares through the store, so any node can check a URL another node made, without storage.
package struct AssetURLs: Sendable {
    /// The HMAC key's bytes.
    package let key: Data

    /// A database as claims name it, in short keys to keep URLs short.
    package struct DatabaseClaim: Codable, Sendable, Hashable {
        package var c: String
        package var e: Environment
        package var s: DatabaseScope
        package var o: String

        package init(_ database: DatabaseRef) {
            (c, e, s, o) = (database.containerID, database.environment, database.scope, database.ownerRecordName)
        }

        package var database: DatabaseRef { DatabaseRef(containerID: c, environment: e, scope: s, ownerRecordName: o) }
    }

    /// What an upload URL lets its holder do: upload one file for one field of one database.
    package struct Upload: Codable, Sendable, Hashable {
        private var databaseClaim: DatabaseClaim
        package var zoneName: String
        package var recordType: String
        package var fieldName: String
        package var recordName: String
        /// Milliseconds since 1970.
        package var expiresAt: Int64

        package var database: DatabaseRef { databaseClaim.database }

        package init(database: DatabaseRef, zoneName: String, recordType: String, fieldName: String, recordName: String, expiresAt: Int64) {
            databaseClaim = DatabaseClaim(database)
            self.zoneName = zoneName
            self.recordType = recordType
            self.fieldName = fieldName
            self.recordName = recordName
            self.expiresAt = expiresAt
        }

        package enum CodingKeys: String, CodingKey {
            case databaseClaim = "d", zoneName = "z", recordType = "t", fieldName = "f", recordName = "r", expiresAt = "x"
        }
    }

    /// What a download URL lets its holder do: read one asset while one record field holds it.
    package struct Download: Codable, Sendable, Hashable {
        package var assetID: String
        private var databaseClaim: DatabaseClaim
        package var zoneName: String
        package var recordName: String
        package var fieldName: String
        /// Milliseconds since 1970.
        package var expiresAt: Int64

        package var database: DatabaseRef { databaseClaim.database }

        package init(assetID: String, database: DatabaseRef, zoneName: String, recordName: String, fieldName: String, expiresAt: Int64) {
            self.assetID = assetID
            databaseClaim = DatabaseClaim(database)
            self.zoneName = zoneName
            self.recordName = recordName
            self.fieldName = fieldName
            self.expiresAt = expiresAt
        }

        package enum CodingKeys: String, CodingKey {
            case assetID = "a", databaseClaim = "d", zoneName = "z", recordName = "r", fieldName = "f", expiresAt = "x"
        }
    }

    package func token(for upload: Upload) -> String { sign(upload, purpose: "upload") }
    package func token(for download: Download) -> String { sign(download, purpose: "download") }

    /// The claims of a token this server signed for `purpose`, expired or not; `nil` for anything else.
    package func upload(from token: String) -> Upload? { verify(token, purpose: "upload") }
    package func download(from token: String) -> Download? { verify(token, purpose: "download") }

    private func sign(_ claims: some Encodable, purpose: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding these plain structs cannot fail.
        let payload = WebAuthTokens.base64URL(Array((try? encoder.encode(claims)) ?? Data()))
        return payload + "." + signature(payload, purpose: purpose)
    }

    private func verify<T: Decodable>(_ token: String, purpose: String) -> T? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, token.utf8.count <= 4096 else { return nil }
        let expected = signature(String(parts[0]), purpose: purpose)
        guard expected.utf8.count == parts[1].utf8.count,
            zip(expected.utf8, parts[1].utf8).reduce(0, { $0 | ($1.0 ^ $1.1) }) == 0,
            let json = Self.decodeBase64URL(String(parts[0]))
        else { return nil }
        return try? JSONDecoder().decode(T.self, from: json)
    }

    private func signature(_ payload: String, purpose: String) -> String {
        WebAuthTokens.base64URL(Array(HMAC<SHA256>.authenticationCode(for: Data((purpose + "|" + payload).utf8), using: SymmetricKey(data: key))))
    }

    package static func decodeBase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }

    package init(key: Data) {
        self.key = key
    }
}
