/// Rewrites a module so that every mutable global it defines is exported (as `__stratus_global_<index>`): a reused
/// instance then has its globals set back, with its memory, between calls, and no call sees what another left.
enum GlobalExports {
    static let prefix = "__stratus_global_"

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int

        mutating func byte() throws(FunctionError) -> UInt8 {
            guard offset < bytes.count else { throw FunctionError(.invalidModule, "the module ends in the middle of a section") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func unsigned() throws(FunctionError) -> UInt64 {
            var result: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let next = try byte()
                if shift < 64 { result |= UInt64(next & 0x7F) << shift }
                if next & 0x80 == 0 { return result }
                shift += 7
                guard shift < 70 else { throw FunctionError(.invalidModule, "a number in the module is too long") }
            }
        }

        mutating func skip(_ count: Int) throws(FunctionError) {
            guard count >= 0, offset + count <= bytes.count else { throw FunctionError(.invalidModule, "the module ends early") }
            offset += count
        }

        /// Skips a constant expression, up to and including its `end`.
        mutating func skipConstantExpression() throws(FunctionError) {
            while true {
                switch try byte() {
                case 0x0B: return
                case 0x41, 0x42, 0x23, 0xD2: _ = try unsigned()
                case 0x43: try skip(4)
                case 0x44: try skip(8)
                case 0xD0: _ = try byte()
                case 0xFD:
                    guard try unsigned() == 12 else { throw FunctionError(.invalidModule, "an unexpected vector constant in a global") }
                    try skip(16)
                case 0x6A, 0x6B, 0x6C, 0x7C, 0x7D, 0x7E: continue
                case let other: throw FunctionError(.invalidModule, "an unexpected instruction 0x\(String(other, radix: 16)) in a global's value")
                }
            }
        }
    }

    static func encode(_ value: UInt64) -> [UInt8] {
        var value = value
        var out: [UInt8] = []
        repeat {
            var next = UInt8(value & 0x7F)
            value >>= 7
            if value != 0 { next |= 0x80 }
            out.append(next)
        } while value != 0
        return out
    }

    /// The module with its mutable globals exported, and their indices.
    static func exportingMutableGlobals(_ bytes: [UInt8]) throws(FunctionError) -> (bytes: [UInt8], globals: [Int]) {
        var reader = Reader(bytes: bytes, offset: 8)
        var sections: [(id: UInt8, header: Int, start: Int, end: Int)] = []
        while reader.offset < bytes.count {
            let header = reader.offset
            let id = try reader.byte()
            let size = Int(try reader.unsigned())
            let start = reader.offset
            try reader.skip(size)
            sections.append((id, header, start, start + size))
        }
        var mutable: [Int] = []
        if let section = sections.first(where: { $0.id == 6 }) {
            var globals = Reader(bytes: Array(bytes[section.start..<section.end]), offset: 0)
            let count = Int(try globals.unsigned())
            for index in 0..<count {
                let type = try globals.byte()
                if type == 0x63 || type == 0x64 { _ = try globals.unsigned() }
                if try globals.byte() == 1 { mutable.append(index) }
                try globals.skipConstantExpression()
            }
        }
        guard !mutable.isEmpty, let exports = sections.first(where: { $0.id == 7 }) else { return (bytes, []) }
        var entries = Reader(bytes: Array(bytes[exports.start..<exports.end]), offset: 0)
        let count = try entries.unsigned()
        var payload = encode(count + UInt64(mutable.count)) + Array(entries.bytes[entries.offset...])
        for index in mutable {
            let name = Array((prefix + String(index)).utf8)
            payload += encode(UInt64(name.count)) + name + [0x03] + encode(UInt64(index))
        }
        let rewritten = Array(bytes[..<exports.header]) + [7] + encode(UInt64(payload.count)) + payload + Array(bytes[exports.end...])
        return (rewritten, mutable)
    }
}
