import Foundation
import StratusStore
import Testing

/// One clause of the blob-store contract, checked against a store.
public struct BlobConformanceCase: Sendable, CustomStringConvertible {
    public let name: String
    public let run: @Sendable (any BlobStore) async throws -> Void

    public init(_ name: String, run: @escaping @Sendable (any BlobStore) async throws -> Void) {
        self.name = name
        self.run = run
    }

    public var description: String { name }
}

/// The conformance suite every blob store runs (a folder, S3-compatible storage).
public enum BlobStoreConformance {
    public static var cases: [BlobConformanceCase] {
        [
            BlobConformanceCase("a committed blob reads back whole and by range") { blobs in
                let key = newKey()
                let bytes = pattern(300_000)
                try await write(bytes, to: key, in: blobs, chunk: 70_000)
                #expect(try await read(key, from: blobs) == bytes)
                #expect(try await read(key, range: 1_000...1_999, from: blobs) == Array(bytes[1_000...1_999]))
                #expect(try await read(key, range: 299_990...299_999, from: blobs) == Array(bytes[299_990...]))
                #expect(try await blobs.keys().contains(key))
                try await blobs.delete(key: key)
                #expect(try await !blobs.keys().contains(key))
            },
            BlobConformanceCase("an empty blob is a blob") { blobs in
                let key = newKey()
                try await write([], to: key, in: blobs, chunk: 1)
                #expect(try await read(key, from: blobs) == [])
            },
            BlobConformanceCase("nothing is visible before commit, nor after abort") { blobs in
                let key = newKey()
                let upload = try await blobs.beginUpload(key: key)
                try await upload.append(pattern(1_000))
                await #expect(throws: StorageError.self) { _ = try await read(key, from: blobs) }
                await upload.abort()
                await #expect(throws: StorageError.self) { _ = try await read(key, from: blobs) }
            },
            BlobConformanceCase("a missing blob is notFound; deleting one twice succeeds") { blobs in
                let key = newKey()
                do {
                    _ = try await read(key, from: blobs)
                    Issue.record("read of a missing blob succeeded")
                } catch let error as StorageError {
                    #expect(error.code == .notFound)
                }
                try await write(pattern(10), to: key, in: blobs, chunk: 10)
                try await blobs.delete(key: key)
                try await blobs.delete(key: key)
                await #expect(throws: StorageError.self) { _ = try await read(key, from: blobs) }
            },
            BlobConformanceCase("a large blob written in many appends reads back intact") { blobs in
                let key = newKey()
                let bytes = pattern(12 * 1024 * 1024 + 123)
                try await write(bytes, to: key, in: blobs, chunk: 1024 * 1024)
                #expect(try await read(key, from: blobs) == bytes)
                let middle: ClosedRange<Int64> = 5 * 1024 * 1024 - 10...5 * 1024 * 1024 + 10
                #expect(try await read(key, range: middle, from: blobs) == Array(bytes[Int(middle.lowerBound)...Int(middle.upperBound)]))
                try await blobs.delete(key: key)
            },
            BlobConformanceCase("keys that could name a path elsewhere are refused") { blobs in
                for key in ["../escape", "a/b", "", "dot.dot"] {
                    await #expect(throws: StorageError.self) { _ = try await blobs.beginUpload(key: key) }
                }
            },
            BlobConformanceCase("an upload a crash abandoned is removed; committed blobs stay") { blobs in
                let kept = newKey()
                try await write(pattern(100), to: kept, in: blobs, chunk: 100)
                let abandoned = try await blobs.beginUpload(key: newKey())
                try await abandoned.append(pattern(6 * 1024 * 1024))
                try await blobs.removeAbandonedUploads(startedBefore: Date().addingTimeInterval(3_600))
                #expect(try await read(kept, from: blobs) == pattern(100))
            },
        ]
    }

    static func newKey() -> String { UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "") }

    static func pattern(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
    }

    static func write(_ bytes: [UInt8], to key: String, in blobs: any BlobStore, chunk: Int) async throws {
        let upload = try await blobs.beginUpload(key: key)
        var offset = 0
        while offset < bytes.count {
            try await upload.append(Array(bytes[offset..<min(offset + chunk, bytes.count)]))
            offset += chunk
        }
        try await upload.commit()
    }

    static func read(_ key: String, range: ClosedRange<Int64>? = nil, from blobs: any BlobStore) async throws -> [UInt8] {
        var result: [UInt8] = []
        for try await chunk in try await blobs.read(key: key, range: range) {
            result += chunk
        }
        return result
    }
}
