import StratusServices
import Foundation
import Hummingbird
import NIOCore
import StratusModel

/// Reads and decodes JSON request bodies with a size limit, within the process's ``BodyBudget``.
enum RequestBody {
    /// What the bodies the process holds at once may cost (``RequestLimits/bodyBudget``).
    static let budget = BodyBudget(capacity: RequestLimits.bodyBudget)

    /// Reads the body, refusing it before it is read whole when it is larger than `limit` bytes, or when the
    /// process holds too many bodies already (`THROTTLED`).
    static func read(_ request: Request, limit: Int) async throws -> ByteBuffer {
        try await reading(request, limit: limit) { $0 }
    }

    /// Decodes the body as `T`. An empty body decodes as `{}`.
    static func decode<T: Decodable>(_ type: T.Type, from request: Request, limit: Int) async throws -> T {
        try await reading(request, limit: limit) { buffer in
            buffer.readableBytes == 0 ? try decode(type, from: Array("{}".utf8)) : try decode(type, from: buffer.readableBytesView)
        }
    }

    /// Reads the body a chunk at a time, holding its share of the budget until `use` is done with it.
    private static func reading<T>(_ request: Request, limit: Int, _ use: (ByteBuffer) throws -> T) async throws -> T {
        let length = request.headers[.contentLength].flatMap(Int.init)
        if let length, length > limit {
            throw tooLarge(limit)
        }
        var reserved = 0
        defer { budget.release(reserved) }
        // A declared length is reserved whole before a byte is read; a chunked body as it arrives.
        if let length {
            let share = max(0, length - BodyBudget.freeBytesPerBody) * BodyBudget.decodingFactor
            try budget.reserve(share)
            reserved = share
        }
        var collected = ByteBuffer()
        collected.reserveCapacity(min(length ?? 0, limit))
        do {
            for try await chunk in request.body {
                guard collected.readableBytes + chunk.readableBytes <= limit else { throw tooLarge(limit) }
                let charged = max(0, collected.readableBytes + chunk.readableBytes - BodyBudget.freeBytesPerBody)
                let share = charged * BodyBudget.decodingFactor - reserved
                if share > 0 {
                    try budget.reserve(share, holding: reserved)
                    reserved += share
                }
                var chunk = chunk
                collected.writeBuffer(&chunk)
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError.badRequest("the request body could not be read whole")
        }
        return try use(collected)
    }

    /// Request bodies name at most a few hundred operations, records or zones; an array of many more is
    /// refused before its elements are decoded.
    private static let decoder = JSONValueDecoder(maximumArrayCount: 10_000)

    static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        if containsEscapedNUL(bytes) {
            // PostgreSQL's text cannot hold it, so no backend takes it: stores on either backend hold the same text.
            throw APIError.badRequest("text may not contain the character U+0000")
        }
        do {
            return try decoder.decode(type, from: bytes)
        } catch let error as DecodingError {
            throw APIError.badRequest(describe(error))
        } catch {
            throw APIError.badRequest("the request body is not valid JSON")
        }
    }

    /// Whether JSON text holds the escape `\u0000` (an escaped backslash followed by `u0000` is other text). A raw
    /// NUL byte is not valid JSON, and the decoder refuses it.
    static func containsEscapedNUL(_ bytes: some Collection<UInt8>) -> Bool {
        if let found = bytes.withContiguousStorageIfAvailable({ containsEscapedNUL(in: $0) }) { return found }
        return Array(bytes).withUnsafeBufferPointer { containsEscapedNUL(in: $0) }
    }

    /// Jumps from backslash to backslash with `memchr`, so that a body of megabytes is scanned in a few milliseconds.
    private static func containsEscapedNUL(in buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = buffer.baseAddress else { return false }
        let end = base + buffer.count
        var cursor = base
        while cursor < end, let found = memchr(cursor, Int32(UInt8(ascii: "\\")), end - cursor) {
            var run = UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
            var backslashes = 0
            while run < end, run.pointee == UInt8(ascii: "\\") {
                backslashes += 1
                run += 1
            }
            if backslashes % 2 == 1, end - run >= 5, run[0] == UInt8(ascii: "u"),
                run[1] == UInt8(ascii: "0"), run[2] == UInt8(ascii: "0"), run[3] == UInt8(ascii: "0"), run[4] == UInt8(ascii: "0")
            {
                return true
            }
            cursor = run
        }
        return false
    }

    private static func tooLarge(_ limit: Int) -> APIError {
        APIError(.quotaExceeded, "the request body is larger than the limit of \(limit) bytes")
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
