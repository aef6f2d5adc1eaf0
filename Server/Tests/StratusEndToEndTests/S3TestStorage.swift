import Foundation
import StratusBlobs
import StratusStoreTesting

/// S3 storage for one test: a fresh key prefix in the bucket of the test SeaweedFS, and the `stratus serve`
/// arguments that keep asset files there.
struct S3TestStorage {
    let configuration: S3Configuration
    let serveArguments: [String]

    /// Storage under a new prefix starting with `name`; `nil` when SeaweedFS is not installed (and not under CI,
    /// where that fails the test).
    static func make(_ name: String) async throws -> S3TestStorage? {
        guard let s3 = try await SeaweedFS.endpointForTest() else { return nil }
        let prefix = "\(name)-\(UUID().uuidString.lowercased())/"
        let configuration = S3Configuration(endpoint: s3.url, bucket: "stratus-tests", accessKey: s3.accessKey, secretKey: s3.secretKey, keyPrefix: prefix)
        try await SeaweedFS.whenReady { try await S3BlobStore(configuration: configuration).createBucketIfNeeded() }
        return S3TestStorage(configuration: configuration, serveArguments: [
            "--s3-endpoint", s3.url, "--s3-bucket", "stratus-tests", "--s3-access-key", s3.accessKey,
            "--s3-secret-key", s3.secretKey, "--s3-key-prefix", prefix,
        ])
    }
}
