import ArgumentParser
import Foundation
import StratusBlobs
import StratusStore

/// `stratus serve`'s options for asset files: limits, URL lifetimes, and where the files are kept.
struct AssetOptions: ParsableArguments {
    @Option(help: "The largest asset file accepted, such as 50MB or 1GB (STRATUS_MAX_ASSET_SIZE). Default 50MB.")
    var maxAssetSize: String?

    @Option(help: "Seconds an upload URL, and then its upload's receipt, stay valid (STRATUS_UPLOAD_URL_LIFETIME). Default 900.")
    var uploadURLLifetime: Int?

    @Option(help: "Seconds a download URL stays valid (STRATUS_DOWNLOAD_URL_LIFETIME). Default 3600.")
    var downloadURLLifetime: Int?

    @Option(help: "Seconds between sweeps deleting asset files no record holds (STRATUS_ASSET_SWEEP_INTERVAL). Default 60.")
    var assetSweepInterval: Double?

    @Option(help: "Keep asset files in S3-compatible storage at this URL instead of the data folder (STRATUS_S3_ENDPOINT).")
    var s3Endpoint: String?

    @Option(help: "The S3 region (STRATUS_S3_REGION). Default us-east-1.")
    var s3Region: String?

    @Option(help: "The S3 bucket, created if missing (STRATUS_S3_BUCKET).")
    var s3Bucket: String?

    @Option(help: "The S3 access key (STRATUS_S3_ACCESS_KEY).")
    var s3AccessKey: String?

    @Option(help: "The S3 secret key (STRATUS_S3_SECRET_KEY).")
    var s3SecretKey: String?

    @Option(help: "A prefix for every S3 object key, such as assets/ (STRATUS_S3_KEY_PREFIX).")
    var s3KeyPrefix: String?

    func maximumAssetBytes() throws -> Int64 {
        guard let text = maxAssetSize ?? environmentValue("STRATUS_MAX_ASSET_SIZE") else { return 50 * 1024 * 1024 }
        guard let bytes = Self.parseSize(text), bytes > 0 else {
            throw ValidationError("--max-asset-size must be a size such as 50MB, 512KB or 2GB, not '\(text)'")
        }
        return bytes
    }

    /// The configured S3 bucket, or the `assets` folder of the data folder.
    func openBlobStore(dataFolder: DataFolder) async throws -> any BlobStore {
        guard let endpoint = s3Endpoint ?? environmentValue("STRATUS_S3_ENDPOINT") else {
            return try FolderBlobStore(root: URL(fileURLWithPath: dataFolder.path).appendingPathComponent("assets"))
        }
        guard let bucket = s3Bucket ?? environmentValue("STRATUS_S3_BUCKET"),
            let accessKey = s3AccessKey ?? environmentValue("STRATUS_S3_ACCESS_KEY"),
            let secretKey = s3SecretKey ?? environmentValue("STRATUS_S3_SECRET_KEY")
        else {
            throw ValidationError("--s3-endpoint needs --s3-bucket, --s3-access-key and --s3-secret-key")
        }
        let store = try S3BlobStore(configuration: S3Configuration(
            endpoint: endpoint, region: s3Region ?? environmentValue("STRATUS_S3_REGION") ?? "us-east-1", bucket: bucket,
            accessKey: accessKey, secretKey: secretKey, keyPrefix: s3KeyPrefix ?? environmentValue("STRATUS_S3_KEY_PREFIX") ?? ""
        ))
        try await store.createBucketIfNeeded()
        return store
    }

    /// `50MB`, `512KB`, `2GB` or a plain number of bytes; units are powers of 1024.
    static func parseSize(_ text: String) -> Int64? {
        let upper = text.uppercased().trimmingCharacters(in: .whitespaces)
        for (suffix, factor) in [("GB", Int64(1) << 30), ("MB", Int64(1) << 20), ("KB", Int64(1) << 10), ("B", Int64(1))] where upper.hasSuffix(suffix) {
            return Int64(upper.dropLast(suffix.count).trimmingCharacters(in: .whitespaces)).map { $0 * factor }
        }
        return Int64(upper)
    }
}
