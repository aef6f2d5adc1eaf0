import Crypto
import Foundation
import HTTPTypes
import StratusModel
import Testing

/// Client-side steps of the asset flow, as an app takes them.
extension UserSession {
    /// Asks `assets/upload` for one URL and answers its path on the test server.
    func uploadPath(_ database: String = "public", recordType: String, field: String, recordName: String? = nil, zone: String? = nil) async throws -> String {
        let name = recordName.map { #","recordName":"\#($0)""# } ?? ""
        let zoneID = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
        let reply = try await post(database, "assets/upload", #"{\#(zoneID)"tokens":[{"recordType":"\#(recordType)","fieldName":"\#(field)"\#(name)}]}"#)
        guard case .array(let tokens)? = reply["tokens"], case .string(let url)? = tokens.first?.objectValue?["url"] else {
            throw TestFailure("assets/upload failed: \(reply.status) \(reply.json)")
        }
        return AssetTestSupport.path(of: url)
    }

    /// Uploads bytes for a field and answers the `singleFile` dictionary as JSON text.
    func upload(_ bytes: [UInt8], _ database: String = "public", recordType: String, field: String, zone: String? = nil) async throws -> String {
        let path = try await uploadPath(database, recordType: recordType, field: field, zone: zone)
        let (reply, _) = try await client.sendBytes(.post, path, bytes)
        guard reply.status == 200, let file = reply["singleFile"] else { throw TestFailure("upload failed: \(reply.status) \(reply.json)") }
        var writer = JSONWriter()
        file.write(to: &writer)
        return writer.text
    }

    /// Creates a record whose `fields` JSON text is given, and answers the saved record.
    @discardableResult
    func create(_ name: String, type: String, fields: String, _ database: String = "public", zone: String? = nil) async throws -> [String: JSONValue] {
        let zoneID = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
        let reply = try await post(database, "records/modify", #"{\#(zoneID)"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"\#(type)","fields":\#(fields)}}]}"#)
        return reply.records.first ?? ["status": .integer(Int64(reply.status)), "reply": reply.json]
    }

    /// The download URL path of a record field's asset (the first one of a list).
    func downloadPath(of record: String, field: String, _ database: String = "public", zone: String? = nil) async throws -> String {
        let zoneID = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
        let reply = try await post(database, "records/lookup", #"{\#(zoneID)"records":[{"recordName":"\#(record)"}]}"#)
        guard let value = reply.records.first?["fields"]?.objectValue?[field]?.objectValue?["value"] else {
            throw TestFailure("no field \(field) in \(reply.json)")
        }
        let asset = if case .array(let items) = value { items.first } else { value }
        guard case .string(let url)? = asset?.objectValue?["downloadURL"] else { throw TestFailure("no downloadURL in \(value)") }
        return AssetTestSupport.path(of: url)
    }
}

enum AssetTestSupport {
    /// The path and query of an absolute URL.
    static func path(of url: String) -> String {
        guard let components = URLComponents(string: url) else { return url }
        return components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
    }

    /// A small but real PNG: the signature, then arbitrary bytes.
    static func png(_ count: Int = 300, seed: UInt8 = 1) -> [UInt8] {
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    static func checksum(_ bytes: [UInt8]) -> String {
        Data(SHA256.hash(data: bytes)).base64EncodedString()
    }

    /// A token with one character changed in its signature.
    static func tamper(_ path: String) -> String {
        var characters = Array(path)
        let index = characters.lastIndex(where: { $0 != "/" })!
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }
}
