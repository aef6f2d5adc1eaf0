import Foundation
import StratusBlobs
import StratusStoreTesting
import Testing

/// Assets through a real `stratus serve` process: large files, crashes, and S3 storage.
@Suite(.serialized) struct AssetEndToEndTests {
    static let container = "iCloud.com.example.Assets"

    /// A signed-in user of a fresh container on `server`.
    static func signUp(on server: ServerProcess) async throws -> SignedInUser {
        let apiToken = try await server.createContainer(container)
        return try await SignedInUser.signUp("assets@example.com", container: container, apiToken: apiToken, on: server)
    }

    static func singleFile(of response: StreamingHTTP.Response?) throws -> [String: Any] {
        guard let response, response.status == 200,
            let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
            let file = json["singleFile"] as? [String: Any]
        else { throw E2EFailure("upload failed: \(String(describing: response?.status)) \(String(decoding: response?.body ?? [], as: UTF8.self))") }
        return file
    }

    @Test("a 200 MB file streams up and back down without the server holding it in memory")
    func largeFileStreams() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--max-asset-size", "256MB", "--quiet"])
        try await server.start()
        defer { server.stop() }
        let client = try await Self.signUp(on: server)
        let http = StreamingHTTP(port: server.port)
        let pid = server.identifier

        // A first small transfer, so that what the server allocates once is not counted.
        let warmUp = GeneratedFile(size: 3 * 1024 * 1024)
        let warmFile = try Self.singleFile(of: try http.send("POST", try await client.uploadPath(), length: warmUp.size, chunks: warmUp))
        _ = try http.get(try await client.attach(warmFile, to: "warm-up"))

        let file = GeneratedFile(size: 200 * 1024 * 1024)
        let checksum = file.checksum
        let path = try await client.uploadPath()
        let before = ProcessMemory.read(pid).resident
        ProcessMemory.resetPeak(pid)
        let uploaded = try Self.singleFile(of: try http.send("POST", path, length: file.size, chunks: file))
        let uploadPeak = ProcessMemory.read(pid).peak
        #expect(uploaded["size"] as? Int == file.size)
        #expect(uploaded["fileChecksum"] as? String == checksum)
        print("200 MB upload: server resident \(before >> 20) MB before, peak \(uploadPeak >> 20) MB during")
        #expect(uploadPeak - before < 24 * 1024 * 1024, "the upload grew the server by \((uploadPeak - before) >> 20) MB")

        let download = try await client.attach(uploaded, to: "big")
        let downloadBefore = ProcessMemory.read(pid).resident
        ProcessMemory.resetPeak(pid)
        let response = try http.get(download)
        let downloadPeak = ProcessMemory.read(pid).peak
        #expect(response.status == 200)
        #expect(response.bodyLength == file.size)
        #expect(response.bodyChecksum == checksum)
        print("200 MB download: server resident \(downloadBefore >> 20) MB before, peak \(downloadPeak >> 20) MB during")
        #expect(downloadPeak - downloadBefore < 24 * 1024 * 1024, "the download grew the server by \((downloadPeak - downloadBefore) >> 20) MB")

        let part = try http.get(download, headers: ["Range": "bytes=104857600-104858623"], keepBody: true)
        #expect(part.status == 206)
        #expect(part.body == Array(file.chunk(100).prefix(1024)))
    }

    @Test("a chunked upload over the limit is refused with QUOTA_EXCEEDED and leaves nothing behind")
    func chunkedUploadOverLimit() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--max-asset-size", "1MB", "--quiet"])
        try await server.start()
        defer { server.stop() }
        let client = try await Self.signUp(on: server)
        let response = try StreamingHTTP(port: server.port).send("POST", try await client.uploadPath(), length: nil, chunks: GeneratedFile(size: 3 * 1024 * 1024))
        let body = String(decoding: response?.body ?? [], as: UTF8.self)
        #expect(response?.status == 413)
        #expect(body.contains("QUOTA_EXCEEDED"))
        let blobs = try FolderBlobStore(root: URL(fileURLWithPath: folder + "/assets"))
        #expect(try await blobs.keys().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/assets/uploads").isEmpty)
    }

    @Test("a crash during an upload leaves no visible partial file, and its leftovers are cleaned up")
    func crashDuringUpload() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        let client = try await Self.signUp(on: server)
        let path = try await client.uploadPath()
        let file = GeneratedFile(size: 20 * 1024 * 1024)
        let http = StreamingHTTP(port: server.port)
        let cut = Task.detached { try http.send("POST", path, length: file.size, chunks: file, stopAfter: 8 * 1024 * 1024) }
        // Kill the server while the upload is mid-way: some bytes reached the disk, the rest never will.
        let uploads = folder + "/assets/uploads"
        for _ in 0..<100 where ((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).isEmpty {
            try await Task.sleep(for: .milliseconds(50))
        }
        server.kill()
        _ = try? await cut.value
        let blobs = try FolderBlobStore(root: URL(fileURLWithPath: folder + "/assets"))
        #expect(try await blobs.keys().isEmpty)

        let restarted = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--upload-url-lifetime", "1", "--asset-sweep-interval", "0.5"])
        try await restarted.start()
        defer { restarted.stop() }
        for _ in 0..<100 where !((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).isEmpty {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: uploads).isEmpty)
        #expect(try await blobs.keys().isEmpty)
        // The server works on: a new upload goes through. Its URLs live one second here, which a loaded machine can
        // spend between asking for one and using it: ask again then.
        let small = GeneratedFile(size: 1000)
        var again: [String: Any] = [:]
        for attempt in 1...10 {
            do {
                again = try await client.on(restarted).upload(small, through: StreamingHTTP(port: restarted.port))
                break
            } catch where "\(error)".contains("has expired") && attempt < 10 {
                continue
            }
        }
        #expect(again["fileChecksum"] as? String == small.checksum)
    }

    @Test("the whole asset flow works with S3-compatible storage (SeaweedFS), collection included")
    func s3Storage() async throws {
        guard let storage = try await S3TestStorage.make("e2e") else { return }
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--upload-url-lifetime", "5", "--asset-sweep-interval", "0.5"] + storage.serveArguments)
        try await server.start()
        defer { server.stop() }
        let client = try await Self.signUp(on: server)
        let http = StreamingHTTP(port: server.port)

        // 12 MB goes up in parts.
        let file = GeneratedFile(size: 12 * 1024 * 1024)
        let uploaded = try await client.upload(file, through: http)
        #expect(uploaded["fileChecksum"] as? String == file.checksum)
        let download = try await client.attach(uploaded, to: "m1")
        let whole = try http.get(download)
        #expect(whole.status == 200 && whole.bodyChecksum == file.checksum)
        let part = try http.get(download, headers: ["Range": "bytes=10-19"], keepBody: true)
        #expect(part.status == 206 && part.body == Array(file.chunk(0)[10...19]))

        // An upload never attached is collected once its receipt expires; the attached one stays.
        let stray = GeneratedFile(size: 1000)
        _ = try await client.upload(stray, through: http)
        let bucket = try S3BlobStore(configuration: storage.configuration)
        #expect(try await bucket.keys().count == 2)
        for _ in 0..<300 where try await bucket.keys().count > 1 {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try await bucket.keys().count == 1)
        #expect(try http.get(download).status == 200)

        // Replacing the file releases the old object.
        let next = GeneratedFile(size: 5000)
        let replacement = try await client.upload(next, through: http)
        let newDownload = try await client.attach(replacement, to: "m1")
        for _ in 0..<300 where try await bucket.keys().count > 1 {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(try await bucket.keys().count == 1)
        #expect(try http.get(newDownload).bodyChecksum == next.checksum)
        #expect(try http.get(download).status == 404)
    }
}

/// The asset calls of the end-to-end tests.
extension SignedInUser {
    /// The path of a new upload URL for `Message.image`.
    func uploadPath() async throws -> String {
        let reply = try await post("assets/upload", #"{"tokens":[{"recordType":"Message","fieldName":"image"}]}"#)
        guard let url = (reply["tokens"] as? [[String: Any]])?.first?["url"] as? String, let components = URLComponents(string: url) else {
            throw E2EFailure("no upload URL in \(reply)")
        }
        return components.percentEncodedPath
    }

    /// Uploads `file` through a new upload URL and answers its `singleFile`. Where a server gives its URLs a
    /// short life, a loaded machine may let one pass before the upload starts (403): then it takes a fresh
    /// URL, as a client would.
    func upload(_ file: GeneratedFile, through http: StreamingHTTP) async throws -> [String: Any] {
        var reply: StreamingHTTP.Response?
        for _ in 0..<5 where reply?.status != 200 {
            reply = try http.send("POST", try await uploadPath(), length: file.size, chunks: file)
            if reply?.status != 403 { break }
        }
        return try AssetEndToEndTests.singleFile(of: reply)
    }

    /// Saves a record holding the uploaded file and answers its download URL's path.
    func attach(_ singleFile: [String: Any], to record: String) async throws -> String {
        let file = String(decoding: try JSONSerialization.data(withJSONObject: singleFile), as: UTF8.self)
        let saved = try await post("records/modify", #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"\#(record)","recordType":"Message","fields":{"image":{"value":\#(file)}}}}]}"#)
        let fields = (saved["records"] as? [[String: Any]])?.first?["fields"] as? [String: Any]
        guard let url = ((fields?["image"] as? [String: Any])?["value"] as? [String: Any])?["downloadURL"] as? String,
            let components = URLComponents(string: url)
        else { throw E2EFailure("no download URL in \(saved)") }
        return components.percentEncodedPath
    }
}
