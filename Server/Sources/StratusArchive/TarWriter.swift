import Foundation

/// Writes a tar archive (POSIX ustar), streaming each file from disk: the format of backups.
///
/// Names longer than 100 bytes are split into ustar's prefix and name; sizes past ustar's 8 GiB use the base-256
/// form GNU tar and libarchive read.
public struct TarWriter {
    private let handle: FileHandle
    private static let block = 512

    /// Starts a new archive at `path`, readable by its owner only (backups hold the server's secrets).
    public init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw ArchiveError("cannot create \(path)")
        }
        handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    }

    /// Adds bytes as the file `name`.
    public func add(_ data: Data, as name: String) throws {
        try writeHeader(name: name, size: Int64(data.count))
        try handle.write(contentsOf: data)
        try pad(Int64(data.count))
    }

    /// Adds the file at `path` as `name`, copied in 1 MB pieces.
    /// - Returns: the bytes added.
    @discardableResult
    public func addFile(at path: String, as name: String) throws -> Int64 {
        let source = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? source.close() }
        let size = Int64(try source.seekToEnd())
        try source.seek(toOffset: 0)
        try writeHeader(name: name, size: size)
        var copied: Int64 = 0
        while copied < size, let chunk = try source.read(upToCount: Int(min(1 << 20, size - copied))), !chunk.isEmpty {
            try handle.write(contentsOf: chunk)
            copied += Int64(chunk.count)
        }
        guard copied == size else { throw ArchiveError("\(path) changed while it was archived") }
        try pad(size)
        return size
    }

    /// Ends the archive (two empty blocks), flushes it to disk and closes it.
    public func finish() throws {
        try handle.write(contentsOf: Data(count: 2 * Self.block))
        try handle.synchronize()
        try handle.close()
    }

    private func pad(_ size: Int64) throws {
        let remainder = Int(size % Int64(Self.block))
        if remainder > 0 { try handle.write(contentsOf: Data(count: Self.block - remainder)) }
    }

    private func writeHeader(name: String, size: Int64) throws {
        var header = [UInt8](repeating: 0, count: Self.block)
        let (prefix, shortName) = try Self.split(name)
        Self.put(shortName, at: 0, length: 100, in: &header)
        Self.put(Self.octal(0o600, width: 8), at: 100, length: 8, in: &header)
        Self.put(Self.octal(0, width: 8), at: 108, length: 8, in: &header)
        Self.put(Self.octal(0, width: 8), at: 116, length: 8, in: &header)
        if size < 0o77777777777 {
            Self.put(Self.octal(Int(size), width: 12), at: 124, length: 12, in: &header)
        } else {
            header[124] = 0x80
            for index in 0..<8 { header[135 - index] = UInt8(truncatingIfNeeded: size >> (8 * index)) }
        }
        Self.put(Self.octal(Int(Date().timeIntervalSince1970), width: 12), at: 136, length: 12, in: &header)
        header[156] = UInt8(ascii: "0")
        Self.put("ustar\u{0}00", at: 257, length: 8, in: &header)
        Self.put(prefix, at: 345, length: 155, in: &header)
        // The checksum counts its own field as spaces.
        for index in 148..<156 { header[index] = UInt8(ascii: " ") }
        let sum = header.reduce(0) { $0 + Int($1) }
        Self.put(String(sum, radix: 8).leftPadded(to: 6) + "\u{0} ", at: 148, length: 8, in: &header)
        try handle.write(contentsOf: Data(header))
    }

    /// `name` as ustar's (prefix, name): split at a `/` when it is longer than 100 bytes.
    package static func split(_ name: String) throws -> (String, String) {
        let bytes = Array(name.utf8)
        if bytes.count <= 100 { return ("", name) }
        guard let slash = bytes.indices.last(where: { bytes[$0] == UInt8(ascii: "/") && $0 <= 155 && bytes.count - $0 - 1 <= 100 }) else {
            throw ArchiveError("\(name) is too long for a tar archive")
        }
        return (String(decoding: bytes[..<slash], as: UTF8.self), String(decoding: bytes[(slash + 1)...], as: UTF8.self))
    }

    private static func octal(_ value: Int, width: Int) -> String {
        String(value, radix: 8).leftPadded(to: width - 1)
    }

    private static func put(_ text: String, at offset: Int, length: Int, in header: inout [UInt8]) {
        for (index, byte) in text.utf8.prefix(length).enumerated() { header[offset + index] = byte }
    }
}

extension String {
    package func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
