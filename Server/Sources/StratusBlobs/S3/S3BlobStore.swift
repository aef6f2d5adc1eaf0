import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import StratusStore
import Synchronization
import Tracing

/// Blobs as objects in an S3-compatible bucket, so that several server nodes share the same files.
///
/// Requests are signed with AWS Signature V4 (``SignatureV4``) and address the bucket path-style.
/// Files up to ``S3Configuration/partSize`` are sent with one `PUT`; larger ones with a multipart upload,
/// one part in memory at a time. An object exists only once its `PUT` or multipart completion succeeds,
/// so an interrupted upload is never visible; ``removeAbandonedUploads(startedBefore:)`` aborts the
/// multipart uploads such interruptions leave.
///
/// The store holds connections to the object store: run it as a service of the server (it closes them when the
/// server stops), or call ``shutdown()`` when done with it.
public final class S3BlobStore: BlobStore, Service {
    let configuration: S3Configuration
    let client: HTTPClient
    /// Whether ``shutdown()`` closed the client.
    private let closed = Mutex(false)
    let signer: SignatureV4
    private let endpoint: (base: String, host: String)

    /// - Throws: ``StorageError/Code/invalidArgument`` for an endpoint that is not an http(s) URL.
    public init(configuration: S3Configuration) throws {
        guard let url = URL(string: configuration.endpoint), let scheme = url.scheme, ["http", "https"].contains(scheme),
            let host = url.host
        else {
            throw StorageError(.invalidArgument, "the S3 endpoint '\(configuration.endpoint)' is not an http(s) URL")
        }
        guard !configuration.bucket.isEmpty, !configuration.bucket.contains("/") else {
            throw StorageError(.invalidArgument, "the S3 bucket name '\(configuration.bucket)' is not valid")
        }
        self.configuration = configuration
        let base = configuration.endpoint.hasSuffix("/") ? String(configuration.endpoint.dropLast()) : configuration.endpoint
        endpoint = (base, url.port.map { "\(host):\($0)" } ?? host)
        signer = SignatureV4(accessKey: configuration.accessKey, secretKey: configuration.secretKey, region: configuration.region)
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.timeout = .init(connect: .seconds(10), read: .seconds(60))
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
    }

    /// A store nobody shut down closes its connections in the background: the last reference may go on one of
    /// the client's own threads, where waiting for them would deadlock.
    deinit {
        if !closed.withLock({ $0 }) { client.shutdown { _ in } }
    }

    /// Closes the store's connections; the store serves no more requests.
    public func shutdown() async throws {
        guard closed.withLock({ closed in defer { closed = true }; return !closed }) else { return }
        try await client.shutdown()
    }

    /// As a service of the server: waits for the server to stop serving, then closes the store's connections.
    public func run() async throws {
        try? await gracefulShutdown()
        try await shutdown()
    }

    /// Creates the bucket unless it exists.
    public func createBucketIfNeeded() async throws {
        let response = try await send("PUT", path: bucketPath)
        guard response.status == .ok || response.status == .conflict else {
            throw try await failure(response, "creating bucket \(configuration.bucket)")
        }
        _ = try await response.body.collect(upTo: 64 * 1024)
    }

    /// Asks for the bucket (`HEAD`): the object store answers, the credentials are good, the bucket exists.
    public func checkAvailable() async throws {
        let response = try await send("HEAD", path: bucketPath)
        guard response.status == .ok else {
            throw StorageError(.unavailable, "the object store answered \(response.status.code) for bucket \(configuration.bucket)")
        }
    }

    public func beginUpload(key: String) async throws -> any BlobUpload {
        try BlobKeys.validate(key)
        return S3Upload(store: self, path: objectPath(key))
    }

    public func read(key: String, range: ClosedRange<Int64>?) async throws -> BlobChunks {
        try BlobKeys.validate(key)
        var headers: [String: String] = [:]
        if let range { headers["range"] = "bytes=\(range.lowerBound)-\(range.upperBound)" }
        let response = try await send("GET", path: objectPath(key), headers: headers)
        switch response.status {
        case .ok, .partialContent:
            let body = ResponseBodyReader(response.body)
            return BlobChunks { try await body.next() }
        case .notFound:
            throw StorageError(.notFound, "the blob does not exist")
        default:
            throw try await failure(response, "reading \(key)")
        }
    }

    public func delete(key: String) async throws {
        try BlobKeys.validate(key)
        let response = try await send("DELETE", path: objectPath(key))
        guard response.status == .noContent || response.status == .ok || response.status == .notFound else {
            throw try await failure(response, "deleting \(key)")
        }
        _ = try await response.body.collect(upTo: 64 * 1024)
    }

    public func keys() async throws -> [String] {
        try await objects().map(\.key)
    }

    /// Every object under the key prefix: its key (without the prefix) and size.
    public func objects() async throws -> [(key: String, size: Int64)] {
        var objects: [(key: String, size: Int64)] = []
        var continuation: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", configuration.keyPrefix)]
            if let continuation { query.append(("continuation-token", continuation)) }
            let response = try await send("GET", path: bucketPath, query: query)
            guard response.status == .ok else { throw try await failure(response, "listing objects") }
            let xml = String(buffer: try await response.body.collect(upTo: 16 * 1024 * 1024))
            for block in XMLText.blocks(of: "Contents", in: xml) {
                guard let key = XMLText.value(of: "Key", in: block) else { continue }
                objects.append((String(key.dropFirst(configuration.keyPrefix.count)), XMLText.value(of: "Size", in: block).flatMap(Int64.init) ?? 0))
            }
            continuation = XMLText.value(of: "IsTruncated", in: xml) == "true" ? XMLText.value(of: "NextContinuationToken", in: xml) : nil
        } while continuation != nil
        return objects
    }

    public func removeAbandonedUploads(startedBefore cutoff: Date) async throws {
        let response = try await send("GET", path: bucketPath, query: [("prefix", configuration.keyPrefix), ("uploads", "")])
        guard response.status == .ok else { throw try await failure(response, "listing multipart uploads") }
        let xml = String(buffer: try await response.body.collect(upTo: 8 * 1024 * 1024))
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for upload in XMLText.blocks(of: "Upload", in: xml) {
            guard let key = XMLText.value(of: "Key", in: upload), let id = XMLText.value(of: "UploadId", in: upload),
                let initiated = XMLText.value(of: "Initiated", in: upload),
                let started = formatter.date(from: initiated) ?? ISO8601DateFormatter().date(from: initiated), started < cutoff
            else { continue }
            let path = bucketPath + "/" + SignatureV4.encode(key, keepingSlashes: true)
            let abort = try await send("DELETE", path: path, query: [("uploadId", id)])
            _ = try await abort.body.collect(upTo: 64 * 1024)
        }
    }

    // MARK: - Requests

    var bucketPath: String { "/" + SignatureV4.encode(configuration.bucket) }

    func objectPath(_ key: String) -> String {
        bucketPath + "/" + SignatureV4.encode(configuration.keyPrefix + key, keepingSlashes: true)
    }

    /// One part gathered before it is sent, in a buffer of up to twice its size, and what sending it holds.
    public var memoryPerUpload: Int { 2 * configuration.partSize }

    /// Sends one signed request.
    func send(
        _ method: String, path: String, query: [(String, String)] = [], headers: [String: String] = [:], body: [UInt8] = []
    ) async throws -> HTTPClientResponse {
        try await send(method, path: path, query: query, headers: headers, body: ByteBuffer(bytes: body))
    }

    /// Sends one signed request whose body is a buffer, sent as it is, without a copy. In a traced request, its
    /// span lasts until the answer's head arrives (a body read after is not in it).
    func send(
        _ method: String, path: String, query: [(String, String)] = [], headers: [String: String] = [:], body: ByteBuffer
    ) async throws -> HTTPClientResponse {
        guard StoreSpans.isTracing else { return try await sendSigned(method, path: path, query: query, headers: headers, body: body) }
        let attributes: SpanAttributes = [
            "http.request.method": .string(method), "server.address": .string(endpoint.host), "aws.s3.bucket": .string(configuration.bucket),
            "aws.s3.key": .string(path.hasPrefix(bucketPath + "/") ? String(path.dropFirst(bucketPath.count + 1)) : ""),
            "http.request.body.size": .int64(Int64(body.readableBytes)),
        ]
        return try await StoreSpans.run("S3 \(method)", kind: .client, attributes: attributes) { noted in
            let response = try await sendSigned(method, path: path, query: query, headers: headers, body: body)
            noted["http.response.status_code"] = Int(response.status.code)
            return response
        }
    }

    private func sendSigned(
        _ method: String, path: String, query: [(String, String)], headers: [String: String], body: ByteBuffer
    ) async throws -> HTTPClientResponse {
        var signed = headers
        signed["host"] = endpoint.host
        let payloadHash = SignatureV4.payloadHash(body)
        for (name, value) in signer.sign(
            SignatureV4.Request(method: method, path: path, query: query, headers: signed, payloadHash: payloadHash), at: Date()
        ) {
            signed[name] = value
        }
        let queryString = SignatureV4.canonicalQuery(query)
        var request = HTTPClientRequest(url: endpoint.base + path + (queryString.isEmpty ? "" : "?" + queryString))
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signed {
            request.headers.replaceOrAdd(name: name, value: value)
        }
        if body.readableBytes > 0 || method == "PUT" || method == "POST" {
            request.body = .bytes(body)
        }
        do {
            return try await client.execute(request, timeout: .seconds(120))
        } catch {
            throw StorageError(.unavailable, "the object store at \(configuration.endpoint) did not answer: \(error)", underlying: error)
        }
    }

    /// A store error from an unexpected answer, with S3's error code and message.
    func failure(_ response: HTTPClientResponse, _ action: String) async throws -> StorageError {
        let xml = (try? await response.body.collect(upTo: 64 * 1024)).map { String(buffer: $0) } ?? ""
        let code = XMLText.value(of: "Code", in: xml) ?? "\(response.status.code)"
        let message = XMLText.value(of: "Message", in: xml) ?? response.status.reasonPhrase
        return StorageError(
            response.status.code >= 500 ? .unavailable : .internalFailure,
            "the object store refused \(action): \(response.status.code) \(code): \(message)"
        )
    }
}

/// Reads a response body chunk by chunk for ``BlobChunks``; consumed by one reader at a time.
final class ResponseBodyReader: @unchecked Sendable {
    private var iterator: HTTPClientResponse.Body.AsyncIterator

    init(_ body: HTTPClientResponse.Body) {
        iterator = body.makeAsyncIterator()
    }

    func next() async throws -> [UInt8]? {
        guard let buffer = try await iterator.next() else { return nil }
        return Array(buffer.readableBytesView)
    }
}

/// One object being uploaded: kept in memory up to one part, then sent as a multipart upload.
///
/// The part is sent from the buffer it was gathered in, so an upload holds one part's bytes, not copies of it.
actor S3Upload: BlobUpload {
    private let store: S3BlobStore
    private let path: String
    private var pending = ByteBuffer()
    private var uploadID: String?
    private var etags: [String] = []

    init(store: S3BlobStore, path: String) {
        self.store = store
        self.path = path
    }

    func append(_ bytes: [UInt8]) async throws {
        let partSize = store.configuration.partSize
        if pending.capacity == 0 { pending.reserveCapacity(partSize + bytes.count) }
        pending.writeBytes(bytes)
        while pending.readableBytes >= partSize {
            let part = pending.readSlice(length: partSize)!
            try await send(part)
            pending.discardReadBytes()
        }
    }

    func commit() async throws {
        guard let uploadID else {
            let response = try await store.send("PUT", path: path, body: pending)
            guard response.status == .ok else { throw try await store.failure(response, "storing an object") }
            _ = try await response.body.collect(upTo: 64 * 1024)
            pending = ByteBuffer()
            return
        }
        if pending.readableBytes > 0 || etags.isEmpty {
            try await send(pending)
            pending = ByteBuffer()
        }
        let parts = etags.enumerated().map { index, etag in
            "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(XMLText.escape(etag))</ETag></Part>"
        }.joined()
        let body = Array("<CompleteMultipartUpload>\(parts)</CompleteMultipartUpload>".utf8)
        let response = try await store.send("POST", path: path, query: [("uploadId", uploadID)], headers: ["content-type": "application/xml"], body: body)
        let answer = String(buffer: try await response.body.collect(upTo: 1024 * 1024))
        // S3 can answer 200 and still report an error in the body.
        guard response.status == .ok, !answer.contains("<Error>") else {
            throw StorageError(.unavailable, "the object store refused to complete a multipart upload: \(XMLText.value(of: "Message", in: answer) ?? "\(response.status.code)")")
        }
    }

    func abort() async {
        pending = ByteBuffer()
        guard let uploadID else { return }
        if let response = try? await store.send("DELETE", path: path, query: [("uploadId", uploadID)]) {
            _ = try? await response.body.collect(upTo: 64 * 1024)
        }
        self.uploadID = nil
    }

    /// Sends one part, starting the multipart upload first if needed.
    private func send(_ part: ByteBuffer) async throws {
        if uploadID == nil {
            let response = try await store.send("POST", path: path, query: [("uploads", "")])
            let xml = String(buffer: try await response.body.collect(upTo: 1024 * 1024))
            guard response.status == .ok, let id = XMLText.value(of: "UploadId", in: xml) else {
                throw StorageError(.unavailable, "the object store refused to start a multipart upload (\(response.status.code))")
            }
            uploadID = id
        }
        let response = try await store.send(
            "PUT", path: path, query: [("partNumber", "\(etags.count + 1)"), ("uploadId", uploadID!)], body: part
        )
        guard response.status == .ok, let etag = response.headers.first(name: "etag") else {
            throw try await store.failure(response, "storing part \(etags.count + 1)")
        }
        _ = try await response.body.collect(upTo: 64 * 1024)
        etags.append(etag)
    }
}
