/// Turns the text of a JSON string that holds escapes into the string it stands for.
enum JSONStringEscapes {
    /// The string `text` stands for; `text` lies between the quotes and was checked by ``JSONParser``.
    static func unescape(_ text: UnsafeBufferPointer<UInt8>) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.count)
        var index = 0
        while index < text.count {
            let byte = text[index]
            index += 1
            guard byte == UInt8(ascii: "\\"), index < text.count else {
                result.append(byte)
                continue
            }
            let escape = text[index]
            index += 1
            switch escape {
            case UInt8(ascii: "b"): result.append(0x08)
            case UInt8(ascii: "f"): result.append(0x0C)
            case UInt8(ascii: "n"): result.append(0x0A)
            case UInt8(ascii: "r"): result.append(0x0D)
            case UInt8(ascii: "t"): result.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hexQuad(text, at: index)
                index += 4
                if (0xD800..<0xDC00).contains(scalar), index + 6 <= text.count {
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (hexQuad(text, at: index + 2) - 0xDC00)
                    index += 6
                }
                result.append(contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
            default: result.append(escape)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The value of one hex digit, or nil.
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func hexQuad(_ text: UnsafeBufferPointer<UInt8>, at start: Int) -> UInt32 {
        var value: UInt32 = 0
        for position in start..<min(start + 4, text.count) {
            value = value << 4 | UInt32(hexDigit(text[position]) ?? 0)
        }
        return value
    }
}
