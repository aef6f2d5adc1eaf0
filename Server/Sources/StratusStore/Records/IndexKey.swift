import StratusModel

/// An index key as bytes whose bytewise order is the order Stratus defines for field values, so that every
/// backend sorts and compares keys the same way by comparing bytes (SQLite `BLOB`, PostgreSQL `bytea`).
///
/// A key is a sequence of components, each a type tag and then the value:
/// - a missing value (`0x08`) sorts before everything;
/// - numbers (`0x10`): INT64, DOUBLE, TIMESTAMP, BOOLEAN (0 or 1) and a location's latitude compare as
///   numbers, so `2` equals `2.0`; 8 bytes of the value as a double, in an order-preserving form, and 2 bytes
///   of what an integer loses in that double, so that integers beyond 2^53 stay exact;
/// - text (`0x20`): STRING values and a reference's record name, by UTF-8 bytes; a zero byte is escaped as
///   `00 FF` and the text ends with `00 00`, so that no text's key is a prefix of another's.
///
/// Keys of several components (compound indexes) are the components' keys one after the other; every
/// component is prefix-free, so the whole compares component by component.
///
/// ```swift
/// IndexKey(.integer(2)) < IndexKey(.text("a"))   // numbers before text
/// IndexKey(.double(2)) == IndexKey(.integer(2))
/// ```
public struct IndexKey: Sendable, Hashable, Comparable {
    /// The encoded bytes.
    public private(set) var bytes: [UInt8]

    /// The type tags, in their sort order.
    enum Tag: UInt8 {
        case missing = 0x08
        case number = 0x10
        case text = 0x20
    }

    /// An empty key, to append components to.
    public init() {
        bytes = []
    }

    /// A key of one component.
    public init(_ key: IndexEntry.Key?) {
        bytes = []
        append(key)
    }

    /// A key from stored bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The key of a missing value.
    public static let missing = IndexKey(nil)

    /// Appends one component: `key`, or the missing value when `nil`.
    public mutating func append(_ key: IndexEntry.Key?) {
        switch key {
        case nil: bytes.append(Tag.missing.rawValue)
        case .integer(let value)?: appendNumber(Double(value), residual: Self.residual(of: value))
        case .double(let value)?: appendNumber(value, residual: 0)
        case .text(let text)?:
            bytes.append(Tag.text.rawValue)
            bytes.reserveCapacity(bytes.count + text.utf8.count + 2)
            for byte in text.utf8 {
                bytes.append(byte)
                if byte == 0 { bytes.append(0xFF) }
            }
            bytes += [0, 0]
        }
    }

    /// Appends the components of another key.
    public mutating func append(contentsOf other: IndexKey) {
        bytes += other.bytes
    }

    /// The bytes every text beginning with `prefix` starts with: the text key without its end.
    public static func textPrefix(_ prefix: String) -> IndexKey {
        var key = IndexKey(.text(prefix))
        key.bytes.removeLast(2)
        return key
    }

    /// The smallest key greater than every key that starts with these bytes, or `nil` when there is none
    /// (the bytes are all `FF`). With the key itself, it bounds the range of keys that start with it.
    public var prefixEnd: IndexKey? {
        var end = bytes
        while let last = end.last {
            if last < 0xFF {
                end[end.count - 1] = last + 1
                return IndexKey(bytes: end)
            }
            end.removeLast()
        }
        return nil
    }

    public static func < (lhs: IndexKey, rhs: IndexKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// The number a one-component number key holds (a location's latitude, for distance checks), or `nil`.
    public var number: Double? {
        guard bytes.count == 11, bytes[0] == Tag.number.rawValue else { return nil }
        var bits: UInt64 = 0
        for byte in bytes[1...8] { bits = bits << 8 | UInt64(byte) }
        bits = bits & (1 << 63) != 0 ? bits & ~(1 << 63) : ~bits
        return Double(bitPattern: bits)
    }

    // MARK: - Numbers

    private mutating func appendNumber(_ value: Double, residual: Int16) {
        bytes.append(Tag.number.rawValue)
        // One zero and one NaN, so that equal values have equal keys.
        let normalized = value == 0 ? 0 : value.isNaN ? Double.nan : value
        var bits = normalized.bitPattern
        // Positive numbers: set the sign bit so they sort above negatives. Negative numbers: invert every
        // bit, so that a larger magnitude sorts lower.
        bits = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
        for shift in stride(from: 56, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift)))
        }
        let biased = UInt16(bitPattern: residual) ^ 0x8000
        bytes.append(UInt8(biased >> 8))
        bytes.append(UInt8(truncatingIfNeeded: biased))
    }

    /// What an integer loses when it is rounded to a double: `value - Double(value)`, exactly. Rounding is
    /// monotonic, so two integers whose doubles differ are ordered by their doubles; integers with the same
    /// double are ordered by this. It is at most 512 in size (half the spacing of doubles near 2^63).
    static func residual(of value: Int64) -> Int16 {
        let rounded = Double(value)
        guard abs(rounded) >= 9_007_199_254_740_992 else { return 0 }  // 2^53: every integer below is exact
        let difference = Int128(value) - Int128(rounded)
        return Int16(difference)
    }
}

extension IndexEntry.Key {
    /// The key's bytes in the one sort order (``IndexKey``).
    public var indexKey: IndexKey { IndexKey(self) }
}
