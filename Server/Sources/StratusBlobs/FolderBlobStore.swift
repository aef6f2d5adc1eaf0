import Foundation
import NIOPosix
import StratusStore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Blobs as files in a folder: the default store, inside the data directory.
///
/// An upload is written to `uploads/<key>.<random>`, synced, and renamed to `blobs/<k>/<key>` (where
/// `<k>` is the key's first two characters) when it commits; the folder is synced too. A crash leaves at
/// most a file under `uploads/`, which no read ever sees and ``removeAbandonedUploads(startedBefore:)``
/// deletes. Blocking file calls run on NIO's thread pool, off the cooperative threads.
public struct FolderBlobStore: BlobStore {
    public let root: URL
    /// Bytes read from disk per chunk.
    static let chunkSize = 256 * 1024

    /// Opens the store in `root`, creating its folders.
    public init(root: URL) throws {
        self.root = root
        do {
            for folder in [Self.blobsFolder(root), Self.uploadsFolder(root)] {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            }
        } catch {
            throw StorageError(.internalFailure, "the asset folder \(root.path) cannot be created", underlying: error)
        }
    }

    static func blobsFolder(_ root: URL) -> URL { root.appendingPathComponent("blobs", isDirectory: true) }
    static func uploadsFolder(_ root: URL) -> URL { root.appendingPathComponent("uploads", isDirectory: true) }

    /// Where a committed blob lives.
    func path(of key: String) -> URL {
        Self.blobsFolder(root).appendingPathComponent(String(key.prefix(2)), isDirectory: true).appendingPathComponent(key)
    }

    /// Appended bytes go straight to the file.
    public var memoryPerUpload: Int { 0 }

    /// Checks that both folders exist and can be written (a disk unmounted or made read-only fails it).
    public func checkAvailable() async throws {
        let folders = [Self.blobsFolder(root).path, Self.uploadsFolder(root).path]
        let usable = try await FileCalls.run { folders.allSatisfy { FileManager.default.isWritableFile(atPath: $0) } }
        guard usable else { throw StorageError(.unavailable, "the asset folder \(root.path) cannot be written") }
    }

    public func beginUpload(key: String) async throws -> any BlobUpload {
        try BlobKeys.validate(key)
        let temporary = Self.uploadsFolder(root).appendingPathComponent("\(key).\(UInt64.random(in: 0...UInt64.max))")
        let descriptor = try await FileCalls.run { try FileCalls.openFile(temporary.path, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o640) }
        return FolderBlobUpload(descriptor: descriptor, temporary: temporary, destination: path(of: key))
    }

    public func read(key: String, range: ClosedRange<Int64>?) async throws -> BlobChunks {
        try BlobKeys.validate(key)
        let path = path(of: key).path
        let file = try await FileCalls.run { () throws -> FileReader in
            let descriptor: Int32
            do {
                descriptor = try FileCalls.openFile(path, flags: O_RDONLY, mode: 0)
            } catch let error as StorageError where error.code == .notFound {
                throw StorageError(.notFound, "the blob does not exist")
            }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                close(descriptor)
                throw FileCalls.failure("fstat", path)
            }
            let size = Int64(status.st_size)
            let start = range?.lowerBound ?? 0
            let end = min(range?.upperBound ?? size - 1, size - 1)
            return FileReader(descriptor: descriptor, offset: start, remaining: max(0, end - start + 1))
        }
        return BlobChunks { try await file.next() }
    }

    public func delete(key: String) async throws {
        try BlobKeys.validate(key)
        let path = path(of: key).path
        try await FileCalls.run {
            guard unlink(path) == 0 || errno == ENOENT else { throw FileCalls.failure("unlink", path) }
        }
    }

    public func keys() async throws -> [String] {
        let folder = Self.blobsFolder(root).path
        return try await FileCalls.run {
            (FileManager.default.subpaths(atPath: folder) ?? []).filter { $0.contains("/") }.map { String($0.split(separator: "/").last!) }
        }
    }

    public func removeAbandonedUploads(startedBefore cutoff: Date) async throws {
        let folder = Self.uploadsFolder(root)
        try await FileCalls.run {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names {
                let path = folder.appendingPathComponent(name).path
                guard let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date,
                    modified < cutoff
                else { continue }
                _ = unlink(path)
            }
        }
    }
}

/// A file being written under `uploads/`, renamed into `blobs/` on commit.
final class FolderBlobUpload: BlobUpload {
    private let descriptor: Mutex<Int32?>
    private let temporary: URL
    private let destination: URL

    init(descriptor: Int32, temporary: URL, destination: URL) {
        self.descriptor = Mutex(descriptor)
        self.temporary = temporary
        self.destination = destination
    }

    deinit {
        if let open = descriptor.withLock({ $0 }) {
            close(open)
            unlink(temporary.path)
        }
    }

    func append(_ bytes: [UInt8]) async throws {
        let descriptor = try openDescriptor()
        let path = temporary.path
        try await FileCalls.run { try FileCalls.writeAll(bytes, to: descriptor, path: path) }
    }

    func commit() async throws {
        let descriptor = try openDescriptor()
        let temporary = temporary.path
        let destination = destination
        try await FileCalls.run {
            guard fsync(descriptor) == 0 else { throw FileCalls.failure("fsync", temporary) }
            let folder = destination.deletingLastPathComponent()
            guard mkdir(folder.path, 0o750) == 0 || errno == EEXIST else { throw FileCalls.failure("mkdir", folder.path) }
            guard rename(temporary, destination.path) == 0 else { throw FileCalls.failure("rename", temporary) }
            try FileCalls.syncFolder(folder.path)
        }
        self.descriptor.withLock { open in
            if let descriptor = open { close(descriptor) }
            open = nil
        }
    }

    func abort() async {
        guard let open = descriptor.withLock({ value -> Int32? in
            defer { value = nil }
            return value
        }) else { return }
        close(open)
        unlink(temporary.path)
    }

    private func openDescriptor() throws -> Int32 {
        guard let open = descriptor.withLock({ $0 }) else {
            throw StorageError(.internalFailure, "the upload was committed or aborted already")
        }
        return open
    }
}

/// Reads a byte range of an open file chunk by chunk, closing it at the end.
final class FileReader: Sendable {
    private struct State {
        var descriptor: Int32?
        var offset: Int64
        var remaining: Int64
    }
    private let state: Mutex<State>

    init(descriptor: Int32, offset: Int64, remaining: Int64) {
        state = Mutex(State(descriptor: descriptor, offset: offset, remaining: remaining))
    }

    deinit {
        if let descriptor = state.withLock({ $0.descriptor }) { close(descriptor) }
    }

    func next() async throws -> [UInt8]? {
        let (descriptor, offset, remaining) = state.withLock { ($0.descriptor, $0.offset, $0.remaining) }
        guard let descriptor, remaining > 0 else {
            finish()
            return nil
        }
        let count = Int(min(Int64(FolderBlobStore.chunkSize), remaining))
        let bytes = try await FileCalls.run { () throws -> [UInt8] in
            var buffer = [UInt8](repeating: 0, count: count)
            let read = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            guard read >= 0 else { throw FileCalls.failure("pread", "blob") }
            buffer.removeLast(count - read)
            return buffer
        }
        if bytes.isEmpty {
            finish()
            return nil
        }
        state.withLock {
            $0.offset += Int64(bytes.count)
            $0.remaining -= Int64(bytes.count)
        }
        return bytes
    }

    private func finish() {
        let descriptor = state.withLock { value -> Int32? in
            defer { value.descriptor = nil }
            return value.descriptor
        }
        if let descriptor { close(descriptor) }
    }
}

/// POSIX file calls with their errors as ``StorageError``s, run off the cooperative threads.
enum FileCalls {
    static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await NIOThreadPool.singleton.runIfActive(body)
    }

    static func openFile(_ path: String, flags: Int32, mode: mode_t) throws -> Int32 {
        let descriptor = open(path, flags | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw StorageError(.notFound, "\(path) does not exist") }
            throw failure("open", path)
        }
        return descriptor
    }

    static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let result = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", path)
                }
                written += result
            }
        }
    }

    /// Makes a rename in `path` durable.
    static func syncFolder(_ path: String) throws {
        let descriptor = try openFile(path, flags: O_RDONLY | O_DIRECTORY, mode: 0)
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw failure("fsync", path) }
    }

    static func failure(_ call: String, _ path: String) -> StorageError {
        let code = errno
        let reason = String(cString: strerror(code))
        return StorageError(
            code == ENOSPC || code == EDQUOT ? .unavailable : .internalFailure, "\(call) failed on \(path): \(reason)"
        )
    }
}
