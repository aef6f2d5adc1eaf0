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
            throw StratusError(response.status == 403 ? .assetFileNotFound : .serverRejectedRequest, "downloading the asset answered \(response.status)")
        }
        return response.body
    }

    /// Downloads a fetched asset into a file.
    public func download(_ asset: Asset, to fileURL: URL) async throws {
        try await data(for: asset).write(to: fileURL, options: .atomic)
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
        let answer = try await container.post(databaseScope, "assets/upload", .object([
            "zoneID": record.recordID.zoneID.wire,
            "tokens": .array([.object([
                "recordType": .string(record.recordType), "fieldName": .string(field), "recordName": .string(record.recordID.recordName),
            ])]),
        ]))
        guard let urlText = answer["tokens"]?.arrayValue?.first?.objectValue?["url"]?.stringValue, let url = URL(string: urlText) else {
            throw StratusError(.internalError, "assets/upload answered no upload URL")
        }
        let uploaded = try await container.send("POST", url, rawBody: bytes)
        guard let file = uploaded["singleFile"]?.objectValue, let receipt = file["receipt"]?.stringValue else {
            throw StratusError(.internalError, "the upload answered no receipt")
        }
        var result = asset
        result.receipt = receipt
        result.fileChecksum = file["fileChecksum"]?.stringValue
        result.size = file["size"]?.integerValue
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
