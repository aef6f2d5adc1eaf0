import Foundation

/// Reads a tar archive written by ``TarWriter`` (or any ustar archive of regular files and folders), one entry
/// at a time, streaming each file's bytes.
public struct TarReader {
    public struct Entry {
        public var name: String
        public var size: Int64
    }

    private let handle: FileHandle
    private static let block = 512

    public init(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ArchiveError("cannot read \(path)") }
        self.handle = handle
    }

    public func close() {
        try? handle.close()
    }

    /// The next regular file's entry, its bytes to be read with ``copy(_:to:)`` or ``read(_:)``; `nil` at the end.
    /// Folders and other kinds of entries are passed over.
    public func next() throws -> Entry? {
        while true {
            guard let header = try handle.read(upToCount: Self.block), header.count == Self.block else { return nil }
            let bytes = [UInt8](header)
            if bytes.allSatisfy({ $0 == 0 }) { return nil }
            let stored = Self.number(bytes[148..<156])
            var summed = bytes
            for index in 148..<156 { summed[index] = UInt8(ascii: " ") }
            guard stored == summed.reduce(0, { $0 + Int64($1) }) else { throw ArchiveError("the archive is damaged (a header's checksum is wrong)") }
            let size = Self.number(bytes[124..<136])
            let name = Self.text(bytes[0..<100])
            let prefix = Self.text(bytes[345..<500])
            let entry = Entry(name: prefix.isEmpty ? name : prefix + "/" + name, size: size)
            let kind = bytes[156]
            if kind == UInt8(ascii: "0") || kind == 0 { return entry }
            try skip(size)
        }
    }

    /// Reads the current entry's bytes into memory (small entries: the manifest).
    public func read(_ entry: Entry) throws -> Data {
        let data = try handle.read(upToCount: Int(entry.size)) ?? Data()
        guard data.count == entry.size else { throw ArchiveError("the archive ends inside \(entry.name)") }
        try skipPadding(entry.size)
        return data
    }

    /// Copies the current entry's bytes into a new file at `path`, in 1 MB pieces.
    public func copy(_ entry: Entry, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw ArchiveError("cannot create \(path)")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? output.close() }
        var left = entry.size
        while left > 0 {
            guard let chunk = try handle.read(upToCount: Int(min(1 << 20, left))), !chunk.isEmpty else {
                throw ArchiveError("the archive ends inside \(entry.name)")
            }
            try output.write(contentsOf: chunk)
            left -= Int64(chunk.count)
        }
        try output.synchronize()
        try skipPadding(entry.size)
    }

    private func skip(_ size: Int64) throws {
        let padded = (size + Int64(Self.block) - 1) / Int64(Self.block) * Int64(Self.block)
        try handle.seek(toOffset: try handle.offset() + UInt64(padded))
    }

    private func skipPadding(_ size: Int64) throws {
        let remainder = Int(size % Int64(Self.block))
        if remainder > 0 { try handle.seek(toOffset: try handle.offset() + UInt64(Self.block - remainder)) }
    }

    /// An octal field, or a base-256 one (its first byte's high bit set).
    private static func number(_ field: ArraySlice<UInt8>) -> Int64 {
        if let first = field.first, first & 0x80 != 0 {
            return field.dropFirst().reduce(Int64(first & 0x7F)) { ($0 << 8) | Int64($1) }
        }
        let digits = field.drop { $0 == UInt8(ascii: " ") }.prefix { $0 != 0 && $0 != UInt8(ascii: " ") }
        return Int64(String(decoding: digits, as: UTF8.self), radix: 8) ?? 0
    }

    private static func text(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }
}
