import WasmKit

/// A module's exported memory, read and written with every access checked against its size (an address out of
/// bounds traps the call, never the server).
struct CheckedMemory {
    let memory: Memory

    init(_ caller: borrowing Caller) throws {
        guard let memory = caller.instance?.exports[memory: "memory"] else {
            throw FunctionError(.invalidModule, "the module exports no memory named \"memory\"")
        }
        self.memory = memory
    }

    private func check(_ offset: UInt32, _ count: Int) throws {
        guard count >= 0, Int(offset) + count <= memory.byteCount else {
            throw FunctionError(.trapped, "the module passed memory out of bounds (\(count) bytes at \(offset))")
        }
    }

    func read(_ offset: UInt32, count: UInt32) throws -> [UInt8] {
        try check(offset, Int(count))
        return memory.withUnsafeBufferPointer(offset: UInt(offset), count: Int(count)) { Array($0) }
    }

    func write(_ bytes: [UInt8], at offset: UInt32) throws {
        try check(offset, bytes.count)
        guard !bytes.isEmpty else { return }
        memory.withUnsafeMutableBufferPointer(offset: UInt(offset), count: bytes.count) { target in
            target.copyBytes(from: bytes)
        }
    }

    func u32(at offset: UInt32) throws -> UInt32 {
        let bytes = try read(offset, count: 4)
        return UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
    }

    func setU32(_ value: UInt32, at offset: UInt32) throws {
        try write((0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }, at: offset)
    }

    func setU64(_ value: UInt64, at offset: UInt32) throws {
        try write((0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }, at: offset)
    }

    /// The buffers of a WASI `iovec` list: (address, length) pairs.
    func buffers(_ list: UInt32, count: UInt32) throws -> [(UInt32, UInt32)] {
        guard count <= 1024 else { throw FunctionError(.trapped, "the module passed \(count) buffers at once") }
        return try (0..<count).map { index in
            let entry = list &+ index &* 8
            return (try u32(at: entry), try u32(at: entry &+ 4))
        }
    }
}
