import Foundation
internal import StratusModel

/// Uploading the assets of records being saved, and downloading fetched ones.
extension Database {
    /// The bytes of a fetched asset.
    /// - Throws: ``StratusError`` `assetFileNotFound` for an asset without a download URL (not fetched, or gone).
    public func data(for asset: Asset) async throws -> Data {
        guard let url = asset.downloadURL else { throw StratusError(.assetFileNotFound, "the asset has no download URL; fetch its record first") }
        let response = try await container.transport.send(TransportRequest(method: "GET", url: url))
        guard response.status == 200 else {
            throw StratusError([403, 404].contains(response.status) ? .assetFileNotFound : .serverRejectedRequest, "downloading the asset answered \(response.status)")
        }
        return response.body
    }

    /// Downloads a fetched asset into a file, streaming it to disk (a large file is never held in memory). The file
    /// appears complete or not at all: the bytes go to a hidden file beside it, renamed once all have arrived.
    /// - Throws: ``StratusError`` `assetFileNotFound` when the asset has no download URL, or it expired or is gone;
    ///   `networkFailure` when the download breaks off.
    public func download(_ asset: Asset, to fileURL: URL) async throws {
        guard let url = asset.downloadURL else { throw StratusError(.assetFileNotFound, "the asset has no download URL; fetch its record first") }
        let partial = fileURL.deletingLastPathComponent().appendingPathComponent(".\(fileURL.lastPathComponent).\(UUID().uuidString).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil), let handle = try? FileHandle(forWritingTo: partial) else {
            throw StratusError(.internalError, "cannot write to \(fileURL.deletingLastPathComponent().path)")
        }
        var received: Int64 = 0
        do {
            defer { try? handle.close() }
            for try await chunk in container.transport.stream(TransportRequest(method: "GET", url: url)) {
                try handle.write(contentsOf: chunk)
                received += Int64(chunk.count)
            }
            if let size = asset.size, size != received {
                throw StratusError(.networkFailure, "the download ended after \(received) of \(size) bytes")
            }
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: partial)
            if let failure = error as? StratusError, [.permissionFailure, .unknownItem].contains(failure.code) {
                throw StratusError(.assetFileNotFound, "the asset's download URL expired, or the file is gone")
            }
            throw error
        }
        // rename(2) replaces an existing file in one step.
        guard rename(partial.path, fileURL.path) == 0 else {
            try? FileManager.default.removeItem(at: partial)
            throw StratusError(.internalError, "cannot move the download to \(fileURL.path)")
        }
    }

    /// The record with each fetched asset (in a field or a list) downloaded into `folder`, its ``Asset/fileURL``
    /// naming the file, as CloudKit hands out a fetched `CKAsset`. Files are named by their checksum, so an asset
    /// already downloaded there is not downloaded again. The app owns the files and removes them when done.
    public func downloadingAssets(of record: Record, into folder: URL = FileManager.default.temporaryDirectory.appendingPathComponent("StratusKit-Assets")) async throws -> Record {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var record = record
        for (name, value) in record.values {
            switch value {
            case .asset(let asset):
                record.values[name] = .asset(try await downloaded(asset, into: folder))
            case .list(let items) where items.contains(where: { if case .asset = $0 { true } else { false } }):
                var downloadedItems: [FieldValue] = []
                for item in items {
                    if case .asset(let asset) = item { downloadedItems.append(.asset(try await downloaded(asset, into: folder))) } else { downloadedItems.append(item) }
                }
                record.values[name] = .list(downloadedItems)
            default:
                continue
            }
        }
        return record
    }

    private func downloaded(_ asset: Asset, into folder: URL) async throws -> Asset {
        guard asset.downloadURL != nil else { return asset }
        let name = (asset.fileChecksum ?? UUID().uuidString).map { $0.isLetter || $0.isNumber ? $0 : "_" }
        let file = folder.appendingPathComponent(String(name))
        let existing = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value
        if asset.fileChecksum == nil || existing == nil || (asset.size != nil && existing != asset.size) {
            try await download(asset, to: file)
        }
        var local = asset
        local.fileURL = file
        return local
    }

    /// The record with every asset still to upload uploaded, holding its receipt.
    func uploadingAssets(of record: Record) async throws -> Record {
        var record = record
        for (name, value) in record.values {
            guard value.containsUpload else { continue }
            record.values[name] = try await uploading(value, field: name, of: record)
        }
        return record
    }

    private func uploading(_ value: FieldValue, field: String, of record: Record) async throws -> FieldValue {
        switch value {
        case .asset(let asset) where asset.needsUpload:
            return .asset(try await upload(asset, field: field, of: record))
        case .list(let values):
            var uploaded: [FieldValue] = []
            for element in values { uploaded.append(try await uploading(element, field: field, of: record)) }
            return .list(uploaded)
        default:
            return value
        }
    }

    /// Asks for an upload URL, sends the bytes, and answers the asset holding its receipt.
    private func upload(_ asset: Asset, field: String, of record: Record) async throws -> Asset {
        let bytes: Data
        if let data = asset.data {
            bytes = data
        } else if let fileURL = asset.fileURL {
            do { bytes = try Data(contentsOf: fileURL) } catch {
                throw StratusError(.assetFileNotFound, "cannot read \(fileURL.path): \(error.localizedDescription)")
            }
        } else {
            return asset
        }
        let request = AssetUploadRequest(
            zoneID: record.recordID.zoneID.model,
            tokens: [AssetUploadRequest.Token(recordType: record.recordType, fieldName: field, recordName: record.recordID.recordName)]
        )
        let answer = try await container.post(databaseScope, "assets/upload", request, answer: AssetUploadResponse.self)
        guard let urlText = answer.tokens.first?.url, let url = URL(string: urlText) else {
            throw StratusError(.internalError, "assets/upload answered no upload URL")
        }
        let file = try await container.send("POST", url, rawBody: bytes, contentType: "application/octet-stream", answer: AssetUploadResult.self).singleFile
        var result = asset
        result.receipt = file.receipt
        result.fileChecksum = file.fileChecksum
        result.size = file.size
        return result
    }
}

extension FieldValue {
    /// Whether the value holds an asset still to upload.
    var containsUpload: Bool {
        switch self {
        case .asset(let asset): asset.needsUpload
        case .list(let values): values.contains(where: \.containsUpload)
        default: false
        }
    }
}
