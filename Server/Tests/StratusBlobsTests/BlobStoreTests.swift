import Foundation
import StratusBlobs
import StratusStore
import StratusStoreTesting
import Testing

@Suite struct FolderBlobStoreTests {
    @Test("the folder store meets the blob-store contract", arguments: BlobStoreConformance.cases)
    func conformance(_ check: BlobConformanceCase) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        try await check.run(try FolderBlobStore(root: root))
    }

    @Test("uploads in progress live apart from committed blobs, and abandoned ones are removed")
    func uploadsFolder() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try FolderBlobStore(root: root)
        let upload = try await store.beginUpload(key: "abc123")
        try await upload.append([1, 2, 3])
        let uploads = root.appendingPathComponent("uploads").path
        #expect(try FileManager.default.contentsOfDirectory(atPath: uploads).count == 1)
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("blobs/ab/abc123").path))
        try await store.removeAbandonedUploads(startedBefore: Date().addingTimeInterval(-60))
        #expect(try FileManager.default.contentsOfDirectory(atPath: uploads).count == 1)
        try await store.removeAbandonedUploads(startedBefore: Date().addingTimeInterval(60))
        #expect(try FileManager.default.contentsOfDirectory(atPath: uploads).isEmpty)
    }
}

@Suite struct S3BlobStoreTests {
    /// A store on a fresh key prefix of the test SeaweedFS server's bucket (SeaweedFS gives each bucket
    /// volumes of its own, so tests share one).
    static func makeStore() async throws -> S3BlobStore? {
        guard let endpoint = try await SeaweedFS.endpointForTest() else { return nil }
        let store = try S3BlobStore(configuration: S3Configuration(
            endpoint: endpoint.url, bucket: "stratus-tests", accessKey: endpoint.accessKey, secretKey: endpoint.secretKey,
            keyPrefix: "\(UUID().uuidString.lowercased())/", partSize: 5 * 1024 * 1024
        ))
        try await SeaweedFS.whenReady { try await store.createBucketIfNeeded() }
        return store
    }

    @Test("the S3 store meets the blob-store contract against SeaweedFS", arguments: BlobStoreConformance.cases)
    func conformance(_ check: BlobConformanceCase) async throws {
        guard let store = try await Self.makeStore() else { return }
        try await check.run(store)
    }

    @Test("a wrong secret is refused by the server, so requests really are signed")
    func wrongSecret() async throws {
        guard let endpoint = try await SeaweedFS.endpointForTest() else { return }
        let store = try S3BlobStore(configuration: S3Configuration(
            endpoint: endpoint.url, bucket: "stratus-wrong", accessKey: endpoint.accessKey, secretKey: "not-the-secret"
        ))
        await #expect(throws: StorageError.self) { try await store.createBucketIfNeeded() }
    }
}
