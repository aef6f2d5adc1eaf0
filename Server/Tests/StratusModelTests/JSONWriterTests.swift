import Foundation
import StratusModel
import Testing

@Suite struct JSONWriterTests {
    @Test("strings with quotes, backslashes, control characters and any Unicode read back unchanged")
    func stringsRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "漢", "😀", "/"]
        var samples = ["", "plain", "\"", "\\", "ends with a quote\"", "\u{1}\u{2}", String(repeating: "long text ", count: 100)]
        for _ in 0..<500 {
            samples.append(String((0..<Int.random(in: 0...40, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for sample in samples {
            var writer = JSONWriter()
            writer.beginArray()
            writer.arrayElement()
            writer.string(sample)
            writer.endArray()
            let decoded = try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String]
            #expect(decoded == [sample], "\(writer.text)")
        }
    }

    @Test("integers are written exactly, the extremes included")
    func integers() {
        for value: Int64 in [0, 1, -1, 9, 10, -10, 1_234_567_890, .max, .min, .max - 1, .min + 1] {
            var writer = JSONWriter()
            writer.integer(value)
            #expect(writer.text == String(value))
        }
    }
}
