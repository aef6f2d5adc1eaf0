import Foundation

/// Where asset files live: a folder of the data directory, or S3-compatible object storage.
///
/// Keys are the server's asset IDs. A blob becomes visible under its key only when its upload commits,
/// so a crash or a refused upload never leaves a partial file readable.
///
/// ```swift
/// let upload = try await blobs.beginUpload(key: id)
/// for chunk in chunks { try await upload.append(chunk) }
/// try await upload.commit()
/// for try await bytes in try await blobs.read(key: id, range: 0...1023) { consume(bytes) }
/// ```
public protocol BlobStore: Sendable {
    /// The most memory one upload in progress holds in the store, in bytes: what the server sets aside for
    /// each, so that many uploads at once cannot take it past its memory.
    var memoryPerUpload: Int { get }
    /// Starts writing a new blob.
    func beginUpload(key: String) async throws -> any BlobUpload
    /// The blob's bytes, or only those in `range` (offsets inclusive, within the blob).
    /// - Throws: ``StorageError/Code/notFound`` when no blob has that key.
    func read(key: String, range: ClosedRange<Int64>?) async throws -> BlobChunks
    /// Deletes a blob; deleting a missing one succeeds.
    func delete(key: String) async throws
    /// The keys of every committed blob, for audits.
    func keys() async throws -> [String]
    /// Removes what uploads cut short by a crash left behind, if they started before `cutoff`.
    func removeAbandonedUploads(startedBefore cutoff: Date) async throws
    /// Checks that blobs can be stored and read now, for readiness checks.
    /// - Throws: ``StorageError/Code/unavailable`` when the store cannot be reached or used.
    func checkAvailable() async throws
}

/// One blob being written. Call ``commit()`` to make it visible, or ``abort()`` to discard it.
public protocol BlobUpload: Sendable {
    /// Appends bytes. Implementations keep at most a bounded buffer in memory.
    func append(_ bytes: [UInt8]) async throws
    /// Makes the blob durable and visible under its key.
    func commit() async throws
    /// Discards everything written; the key stays as it was.
    func abort() async
}

/// A blob's bytes as a single-pass sequence of chunks, read as they are consumed.
public struct BlobChunks: AsyncSequence, Sendable {
    public typealias Element = [UInt8]
    private let next: @Sendable () async throws -> [UInt8]?

    /// Chunks produced by `next` until it answers `nil`.
    public init(next: @escaping @Sendable () async throws -> [UInt8]?) {
        self.next = next
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let next: @Sendable () async throws -> [UInt8]?
        public mutating func next() async throws -> [UInt8]? { try await next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(next: next) }
}
