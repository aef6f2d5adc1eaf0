import Foundation
import StratusModel
import StratusStoreTesting
import Testing

@Suite struct JSONParserTests {
    @Test("random documents read back equal to what was written", arguments: [1, 2, 3])
    func roundTrip(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<300 {
            let value = Self.randomValue(depth: 0, using: &generator)
            var writer = JSONWriter()
            value.write(to: &writer)
            #expect(try JSONParser.parse(writer.bytes) == value, "\(writer.text)")
        }
    }

    @Test("numbers: whole ones that fit are integers, the rest doubles", arguments: [
        ("0", JSONValue.integer(0)), ("-0", .integer(0)), ("42", .integer(42)), ("1.0", .integer(1)), ("1e3", .integer(1000)),
        ("-9223372036854775808", .integer(.min)), ("9223372036854775807", .integer(.max)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)), ("1.5", .double(1.5)), ("-2.5E-3", .double(-0.0025)),
    ])
    func numbers(text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(Array(text.utf8)) == expected)
    }

    @Test("escapes, surrogate pairs and UTF-8 text decode to the same string JSONSerialization reads")
    func strings() throws {
        for text in [#""a\"b\\c\/d\b\f\n\r\t""#, #""\u00e9\u6F22\ud83d\ude00""#, "\"é漢😀\"", #""""#] {
            let expected = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed) as? String
            #expect(try JSONParser.parse(Array(text.utf8)) == .string(expected ?? "?"), "\(text)")
        }
    }

    @Test("text that is not JSON is refused with where it went wrong", arguments: [
        "", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", "-", "1e", "tru", "nul", "\"open",
        "\"bad \\x escape\"", "\"\\ud800 lone\"", "\"\\u12\"", "\"tab\there\"", "[1] 2", "{\"a\":1}}", "NaN", "[1e999]",
    ])
    func refusals(text: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test("invalid UTF-8 in a string is refused")
    func invalidUTF8() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0x5C, 0x6E, 0xFF, 0x22]) }
    }

    @Test("nesting deeper than the limit is refused rather than exhausting the stack")
    func depth() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(deep.utf8)) }
        let allowed = String(repeating: "[", count: JSONParser.maximumDepth) + String(repeating: "]", count: JSONParser.maximumDepth)
        _ = try JSONParser.parse(Array(allowed.utf8))
    }

    @Test("mutated documents never crash the parser, and what it accepts reads back the same after writing", arguments: [7, 8])
    func mutations(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        let interesting: [UInt8] = Array(#"{}[]",:\-+.0123456789eEtrufalsn u"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xED, 0xF0, 0xFF]
        for _ in 0..<2_000 {
            var writer = JSONWriter()
            Self.randomValue(depth: 0, using: &generator).write(to: &writer)
            var bytes = writer.bytes
            for _ in 0..<Int.random(in: 1...4, using: &generator) where !bytes.isEmpty {
                let position = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0...2, using: &generator) {
                case 0: bytes[position] = interesting.randomElement(using: &generator)!
                case 1: bytes.remove(at: position)
                default: bytes.insert(interesting.randomElement(using: &generator)!, at: position)
                }
            }
            guard let parsed = try? JSONParser.parse(bytes) else { continue }
            var rewriter = JSONWriter()
            parsed.write(to: &rewriter)
            #expect((try? JSONParser.parse(rewriter.bytes)) == parsed, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    static func randomValue(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "\n", "\u{1}", "é", "漢", "😀", "/"]
        func text() -> String {
            String((0..<Int.random(in: 0...12, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! })
        }
        switch Int.random(in: 0...(depth > 3 ? 4 : 6), using: &generator) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &generator))
        case 2: return .integer(Int64.random(in: .min ... .max, using: &generator))
        case 3: return .double(Double(Int.random(in: -1_000_000...1_000_000, using: &generator)) + 0.25)
        case 4: return .string(text())
        case 5: return .array((0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(depth: depth + 1, using: &generator) })
        default:
            var object: [String: JSONValue] = [:]
            for _ in 0..<Int.random(in: 0...4, using: &generator) { object[text()] = randomValue(depth: depth + 1, using: &generator) }
            return .object(object)
        }
    }
}
