/// Where and how to reach an S3-compatible object store (AWS S3, MinIO, SeaweedFS, Ceph, R2, ...).
public struct S3Configuration: Sendable, Hashable {
    /// The service's base URL, such as `https://s3.eu-west-1.amazonaws.com` or `http://127.0.0.1:8333`.
    /// Buckets are addressed path-style: `<endpoint>/<bucket>/<key>`.
    public var endpoint: String
    public var region: String
    public var bucket: String
    public var accessKey: String
    public var secretKey: String
    /// Put before every object key, such as `assets/`.
    public var keyPrefix: String
    /// Files larger than this go up in parts of this size (multipart upload); S3 needs at least 5 MiB.
    public var partSize: Int

    public init(
        endpoint: String, region: String = "us-east-1", bucket: String, accessKey: String, secretKey: String,
        keyPrefix: String = "", partSize: Int = 8 * 1024 * 1024
    ) {
        self.endpoint = endpoint
        self.region = region
        self.bucket = bucket
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.keyPrefix = keyPrefix
        self.partSize = max(partSize, 5 * 1024 * 1024)
    }
}
