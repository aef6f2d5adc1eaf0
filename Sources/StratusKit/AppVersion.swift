/// An app's dotted version number, compared part by part: 1.10 is after 1.9, and 1.2 equals 1.2.0.
///
/// The kits target messages and switches by version with it.
public struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The numbers, without trailing zeros.
    public let parts: [Int]

    public init(_ text: String) {
        var parts = text.split(separator: ".").map { Int($0.prefix(while: \.isNumber)) ?? 0 }
        while parts.last == 0 { parts.removeLast() }
        self.parts = parts
    }

    /// `major * 1_000_000 + minor * 1_000 + patch` (minor and patch capped at 999): one integer that orders
    /// versions, for fields a query compares.
    public var code: Int {
        let padded = parts + [0, 0, 0]
        return padded[0] * 1_000_000 + min(padded[1], 999) * 1_000 + min(padded[2], 999)
    }

    public var description: String { parts.isEmpty ? "0" : parts.map(String.init).joined(separator: ".") }

    public static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        lhs.parts.lexicographicallyPrecedes(rhs.parts)
    }
}
