import Foundation
import StratusModel

/// Encodes a backend's cursor or sync-token payload as an opaque string, and back.
///
/// Clients must treat these strings as opaque, but some decode them as standard base64 all the same
/// (OpenCloudKit does), so tokens are issued as standard, padded base64. Tokens issued earlier as unpadded
/// base64url are still accepted.
public enum OpaqueToken {
    /// Encodes a payload.
    public static func encode<Payload: Encodable>(_ payload: Payload) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let data = (try? encoder.encode(payload)) ?? Data()
        return data.base64EncodedString()
    }

    /// Decodes a payload, from standard base64 or the unpadded base64url of earlier versions.
    /// - Throws: ``StorageError/Code/invalidArgument`` naming `what` when the text is not such a token.
    public static func decode<Payload: Decodable>(_ token: String, as: Payload.Type, what: String) throws(StorageError) -> Payload {
        var base64 = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64.append("=") }
        guard let data = Data(base64Encoded: base64), let payload = try? JSONDecoder().decode(Payload.self, from: data) else {
            throw StorageError(.invalidArgument, "\(what) is not valid")
        }
        return payload
    }
}
