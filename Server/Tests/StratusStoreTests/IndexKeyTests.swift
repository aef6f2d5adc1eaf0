import StratusModel
import StratusStore
import Testing

@Suite struct IndexKeyTests {
    /// A number as an exact rational (integer part and whether it has a fraction), to compare ints and
    /// doubles without rounding: every double in these tests is either integral or has a small fraction.
    private static func exactOrder(_ a: IndexEntry.Key, _ b: IndexEntry.Key) -> Int {
        func compare<T: Comparable>(_ x: T, _ y: T) -> Int { x < y ? -1 : x == y ? 0 : 1 }
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return compare(x, y)
        case (.double(let x), .double(let y)): return compare(x, y)
        case (.integer(let x), .double(let y)): return -exactOrder(.double(y), .integer(x))
        case (.double(let x), .integer(let y)):
            // Compare in Int128 where the double is integral and in range; otherwise as doubles.
            if x.rounded() == x, abs(x) < 1.7e38 { return compare(Int128(x), Int128(y)) }
            if x > Double(Int64.max) { return 1 }
            if x < Double(Int64.min) { return -1 }
            let floor = Int128(x.rounded(.down))
            return Int128(y) <= floor ? 1 : -1
        case (.text(let x), .text(let y)):
            return x.utf8.elementsEqual(y.utf8) ? 0 : x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        case (.text, _): return 1
        case (_, .text): return -1
        }
    }

    private static let samples: [IndexEntry.Key] = {
        var keys: [IndexEntry.Key] = []
        let integers: [Int64] = [
            .min, .min + 1, -9_007_199_254_740_993, -9_007_199_254_740_992, -1_000, -1, 0, 1, 2, 3, 1_000,
            9_007_199_254_740_991, 9_007_199_254_740_992, 9_007_199_254_740_993, 9_007_199_254_740_995,
            4_611_686_018_427_387_904, 4_611_686_018_427_388_161, .max - 512, .max - 511, .max - 1, .max,
        ]
        keys += integers.map(IndexEntry.Key.integer)
        let doubles: [Double] = [-.infinity, -1e300, -9_007_199_254_740_992, -2.5, -1, -0.5, -0.0, 0, 0.5, 1, 2, 2.5, 1e15, 9_007_199_254_740_992, 9.3e18, 1e300, .infinity]
        keys += doubles.map(IndexEntry.Key.double)
        let texts = ["", "\u{0}", "\u{0}\u{0}", "a", "a\u{0}", "a\u{0}b", "a\u{1}", "ab", "B", "b", "é", "\u{7F}", "\u{FFFF}", "\u{1F600}"]
        keys += texts.map(IndexEntry.Key.text)
        return keys
    }()

    @Test("keys compare bytewise as their values compare: numbers exactly, text by UTF-8, numbers before text")
    func orderMatchesValues() {
        for a in Self.samples {
            for b in Self.samples {
                let expected = Self.exactOrder(a, b)
                let (x, y) = (IndexKey(a), IndexKey(b))
                let actual = x < y ? -1 : x == y ? 0 : 1
                #expect(actual == expected, "\(a) vs \(b)")
            }
        }
    }

    @Test("a missing value sorts before every value")
    func missingFirst() {
        for key in Self.samples { #expect(IndexKey.missing < IndexKey(key)) }
    }

    @Test("compound keys compare component by component, whatever the components' lengths")
    func compoundOrder() {
        let firsts: [IndexEntry.Key?] = [nil, .text(""), .text("a"), .text("a\u{0}"), .text("ab"), .integer(1), .double(1.5)]
        let seconds: [IndexEntry.Key?] = [nil, .integer(-1), .integer(9_007_199_254_740_993), .text("a"), .text("")]
        var pairs: [(IndexEntry.Key?, IndexEntry.Key?)] = []
        for first in firsts { for second in seconds { pairs.append((first, second)) } }
        func component(_ key: IndexEntry.Key?) -> IndexKey { IndexKey(key) }
        for (a1, a2) in pairs {
            for (b1, b2) in pairs {
                var left = IndexKey(a1)
                left.append(a2)
                var right = IndexKey(b1)
                right.append(b2)
                let expected = component(a1) != component(b1) ? component(a1) < component(b1) : component(a2) < component(b2)
                #expect((left < right) == expected, "(\(String(describing: a1)), \(String(describing: a2))) vs (\(String(describing: b1)), \(String(describing: b2)))")
            }
        }
    }

    @Test("a text prefix and its end bound exactly the texts that begin with it")
    func prefixBounds() {
        let prefixes = ["", "a", "a\u{0}", "ab", "é"]
        let texts = ["", "a", "a\u{0}", "a\u{0}b", "a\u{1}", "ab", "abc", "b", "é", "éa", "\u{1F600}"]
        for prefix in prefixes {
            let start = IndexKey.textPrefix(prefix)
            let end = start.prefixEnd
            for text in texts {
                let key = IndexKey(.text(text))
                let inRange = key >= start && (end.map { key < $0 } ?? true)
                #expect(inRange == text.utf8.starts(with: prefix.utf8), "\(text) begins with \(prefix)?")
            }
        }
        #expect(IndexKey(bytes: [0xFF, 0xFF]).prefixEnd == nil)
        #expect(IndexKey(bytes: [0x01, 0xFF]).prefixEnd == IndexKey(bytes: [0x02]))
    }

    @Test("a number key gives its number back, for distances", arguments: [-90.0, -0.0, 0, 12.5, 48.8566, 90])
    func numberRoundTrip(_ value: Double) {
        #expect(IndexKey(.double(value)).number == value)
    }

    @Test("two and two point zero are one key; the zeros are one key")
    func equalNumbers() {
        #expect(IndexKey(.integer(2)) == IndexKey(.double(2)))
        #expect(IndexKey(.double(-0.0)) == IndexKey(.double(0)))
        #expect(IndexKey(.integer(9_007_199_254_740_993)) != IndexKey(.double(9_007_199_254_740_992)))
    }
}
