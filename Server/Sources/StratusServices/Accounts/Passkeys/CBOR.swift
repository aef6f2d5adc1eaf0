/// A value of CBOR (RFC 8949), the binary encoding WebAuthn authenticators use for attestation objects and
/// public keys. Only what WebAuthn needs is read: integers, byte and text strings, arrays, maps and simple values,
/// all of definite length.
package enum CBOR: Equatable {
    case unsigned(UInt64)
    /// A negative integer, `-1 - n` for the `n` on the wire.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBOR])
    /// Keys and values in the order they were written.
    case map([(CBOR, CBOR)])
    case bool(Bool)
    case null

    /// What goes wrong decoding: the reason, for an error message.
    package struct DecodingError: Error {
        package let reason: String
    }

    /// The integer value, when it is one that fits in an `Int64`.
    package var integer: Int64? {
        switch self {
        case .unsigned(let value): return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value): return value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default: return nil
        }
    }

    /// The value under `key` of a map.
    package subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first { $0.0 == key }?.1
    }

    package subscript(key: String) -> CBOR? { self[.text(key)] }
    package subscript(key: Int64) -> CBOR? { self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))] }

    package static func == (left: CBOR, right: CBOR) -> Bool {
        switch (left, right) {
        case (.unsigned(let a), .unsigned(let b)), (.negative(let a), .negative(let b)): return a == b
        case (.bytes(let a), .bytes(let b)): return a == b
        case (.text(let a), .text(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.map(let a), .map(let b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    /// Decodes the first value in `bytes` and says where it ended, so that what follows (such as the extensions
    /// after a credential's public key) can be read.
    package static func decode(_ bytes: [UInt8], from start: Int = 0) throws(DecodingError) -> (value: CBOR, end: Int) {
        var reader = Reader(bytes: bytes, offset: start)
        let value = try reader.value(depth: 0)
        return (value, reader.offset)
    }

    /// Decodes `bytes` that hold exactly one value.
    package static func decodeWhole(_ bytes: [UInt8]) throws(DecodingError) -> CBOR {
        let (value, end) = try decode(bytes)
        guard end == bytes.count else { throw DecodingError(reason: "\(bytes.count - end) bytes follow the value") }
        return value
    }

    private struct Reader {
        package let bytes: [UInt8]
        package var offset: Int

        /// Deeper nesting than WebAuthn uses is refused rather than followed.
        package static let maximumDepth = 16

        package mutating func byte() throws(DecodingError) -> UInt8 {
            guard offset < bytes.count else { throw DecodingError(reason: "the data ends in the middle of a value") }
            defer { offset += 1 }
            return bytes[offset]
        }

        package mutating func take(_ count: UInt64) throws(DecodingError) -> [UInt8] {
            guard count <= UInt64(bytes.count - offset) else { throw DecodingError(reason: "a string is longer than the data") }
            defer { offset += Int(count) }
            return Array(bytes[offset..<offset + Int(count)])
        }

        /// The argument of a head whose low five bits are `info`.
        package mutating func argument(_ info: UInt8) throws(DecodingError) -> UInt64 {
            switch info {
            case 0..<24: return UInt64(info)
            case 24...27:
                var value: UInt64 = 0
                for _ in 0..<(1 << (info - 24)) { value = value << 8 | UInt64(try byte()) }
                return value
            default: throw DecodingError(reason: "indefinite lengths and reserved heads are not accepted")
            }
        }

        package mutating func value(depth: Int) throws(DecodingError) -> CBOR {
            guard depth <= Self.maximumDepth else { throw DecodingError(reason: "values nest too deep") }
            let head = try byte()
            let info = head & 0x1f
            switch head >> 5 {
            case 0: return .unsigned(try argument(info))
            case 1: return .negative(try argument(info))
            case 2: return .bytes(try take(try argument(info)))
            case 3:
                guard let text = String(validating: try take(try argument(info)), as: UTF8.self) else {
                    throw DecodingError(reason: "a text string is not UTF-8")
                }
                return .text(text)
            case 4:
                let count = try argument(info)
                // Each element takes at least one byte: a larger count cannot be true.
                guard count <= UInt64(bytes.count - offset) else { throw DecodingError(reason: "an array is longer than the data") }
                var elements: [CBOR] = []
                for _ in 0..<count { elements.append(try value(depth: depth + 1)) }
                return .array(elements)
            case 5:
                let count = try argument(info)
                guard count <= UInt64(bytes.count - offset) / 2 else { throw DecodingError(reason: "a map is longer than the data") }
                var entries: [(CBOR, CBOR)] = []
                for _ in 0..<count {
                    let key = try value(depth: depth + 1)
                    entries.append((key, try value(depth: depth + 1)))
                }
                return .map(entries)
            case 6:
                _ = try argument(info)
                return try value(depth: depth + 1)
            default:
                switch info {
                case 20: return .bool(false)
                case 21: return .bool(true)
                case 22, 23: return .null
                default: throw DecodingError(reason: "floating-point and other simple values are not accepted")
                }
            }
        }
    }
}
