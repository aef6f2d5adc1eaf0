import Foundation
import Hummingbird
import StratusModel

/// Reads and decodes JSON request bodies with a size limit.
enum RequestBody {
    /// Reads the body, refusing it before it is read whole when it is larger than `limit` bytes.
    static func read(_ request: Request, limit: Int) async throws -> ByteBuffer {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw tooLarge(limit)
        }
        do {
            return try await request.body.collect(upTo: limit)
        } catch {
            throw tooLarge(limit)
        }
    }

    /// Decodes the body as `T`. An empty body decodes as `{}`.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        var buffer = try await read(request, limit: limit)
        let bytes = buffer.readBytes(length: buffer.readableBytes) ?? []
        return try decode(type, from: bytes.isEmpty ? Array("{}".utf8) : bytes)
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as DecodingError {
            throw APIError.badRequest(describe(error))
        } catch {
            throw APIError.badRequest("the request body is not valid JSON")
        }
    }

    private static func tooLarge(_ limit: Int) -> APIError {
        APIError.badRequest("the request body is larger than the limit of \(limit) bytes")
    }

    /// Says what was wrong and where, for a client to fix.
    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let joined = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            let trimmed = joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
            return trimmed.isEmpty ? "the body" : trimmed
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is required"
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) has the wrong type: expected \(describe(type))"
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) must not be null: expected \(describe(type))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the request body is not valid JSON" }
            return "\(path(context.codingPath)) is not valid: \(context.debugDescription)"
        @unknown default:
            return "the request body is not valid"
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is Double.Type: "a number"
        case is [Any].Type: "an array"
        default: String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
