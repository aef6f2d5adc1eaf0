import Crypto
import Foundation
import StratusModel
import StratusStore

/// Signs and checks the URLs of asset uploads (`/assets/1/upload/<token>`) and downloads
/// (`/assets/1/download/<token>`).
///
/// A token is `<claims>.<signature>`: base64url JSON claims and their HMAC-SHA256 under a key every
/// server node shares through the store, so any node can check a URL another node made, without storage.
struct AssetURLs: Sendable {
    /// The HMAC key's bytes.
    let key: Data

    /// What an upload URL lets its holder do: upload one file for one field of one database.
    struct Upload: Codable, Sendable, Hashable {
        var database: DatabaseRef
        var zoneName: String
        var recordType: String
        var fieldName: String
        var recordName: String
        /// Milliseconds since 1970.
        var expiresAt: Int64

        enum CodingKeys: String, CodingKey {
            case container = "c", environment = "e", scope = "s", owner = "o"
            case zoneName = "z", recordType = "t", fieldName = "f", recordName = "r", expiresAt = "x"
        }
    }

    /// What a download URL lets its holder do: read one asset while one record field holds it.
    struct Download: Codable, Sendable, Hashable {
        var assetID: String
        var database: DatabaseRef
        var zoneName: String
        var recordName: String
        var fieldName: String
        /// Milliseconds since 1970.
        var expiresAt: Int64

        enum CodingKeys: String, CodingKey {
            case assetID = "a", container = "c", environment = "e", scope = "s", owner = "o"
            case zoneName = "z", recordName = "r", fieldName = "f", expiresAt = "x"
        }
    }

    func token(for upload: Upload) -> String { sign(upload, purpose: "upload") }
    func token(for download: Download) -> String { sign(download, purpose: "download") }

    /// The claims of a token this server signed for `purpose`, expired or not; `nil` for anything else.
    func upload(from token: String) -> Upload? { verify(token, purpose: "upload") }
    func download(from token: String) -> Download? { verify(token, purpose: "download") }

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

    static func decodeBase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}

extension AssetURLs.Upload {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        database = try DatabaseRef(claimsIn: container, CodingKeys.container, CodingKeys.environment, CodingKeys.scope, CodingKeys.owner)
        zoneName = try container.decode(String.self, forKey: .zoneName)
        recordType = try container.decode(String.self, forKey: .recordType)
        fieldName = try container.decode(String.self, forKey: .fieldName)
        recordName = try container.decode(String.self, forKey: .recordName)
        expiresAt = try container.decode(Int64.self, forKey: .expiresAt)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try database.encodeClaims(into: &container, CodingKeys.container, CodingKeys.environment, CodingKeys.scope, CodingKeys.owner)
        try container.encode(zoneName, forKey: .zoneName)
        try container.encode(recordType, forKey: .recordType)
        try container.encode(fieldName, forKey: .fieldName)
        try container.encode(recordName, forKey: .recordName)
        try container.encode(expiresAt, forKey: .expiresAt)
    }
}

extension AssetURLs.Download {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        assetID = try container.decode(String.self, forKey: .assetID)
        database = try DatabaseRef(claimsIn: container, CodingKeys.container, CodingKeys.environment, CodingKeys.scope, CodingKeys.owner)
        zoneName = try container.decode(String.self, forKey: .zoneName)
        recordName = try container.decode(String.self, forKey: .recordName)
        fieldName = try container.decode(String.self, forKey: .fieldName)
        expiresAt = try container.decode(Int64.self, forKey: .expiresAt)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(assetID, forKey: .assetID)
        try database.encodeClaims(into: &container, CodingKeys.container, CodingKeys.environment, CodingKeys.scope, CodingKeys.owner)
        try container.encode(zoneName, forKey: .zoneName)
        try container.encode(recordName, forKey: .recordName)
        try container.encode(fieldName, forKey: .fieldName)
        try container.encode(expiresAt, forKey: .expiresAt)
    }
}

extension DatabaseRef {
    fileprivate init<Key: CodingKey>(claimsIn container: KeyedDecodingContainer<Key>, _ id: Key, _ environment: Key, _ scope: Key, _ owner: Key) throws {
        self.init(
            containerID: try container.decode(String.self, forKey: id),
            environment: try container.decode(Environment.self, forKey: environment),
            scope: try container.decode(DatabaseScope.self, forKey: scope),
            ownerRecordName: try container.decode(String.self, forKey: owner)
        )
    }

    fileprivate func encodeClaims<Key: CodingKey>(into container: inout KeyedEncodingContainer<Key>, _ id: Key, _ environment: Key, _ scope: Key, _ owner: Key) throws {
        try container.encode(containerID, forKey: id)
        try container.encode(self.environment, forKey: environment)
        try container.encode(self.scope, forKey: scope)
        try container.encode(ownerRecordName, forKey: owner)
    }
}
