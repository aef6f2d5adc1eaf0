import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The transfers behind the signed URLs: `POST /assets/1/upload/<token>` streams a file into the blob
/// store; `GET /assets/1/download/<token>[/<file name>]` streams it back, whole or by byte range.
///
/// Neither needs the caller's tokens: the signed URL is the permission, made only for a caller allowed
/// to save (upload) or read (download) the record field, and valid for a limited time.
struct AssetTransfer {
    let server: ServerState
    /// Bytes collected from the request before each write to the blob store.
    static let writeSize = RequestLimits.uploadWriteBytes

    func register(on router: Router<StratusRequestContext>) {
        router.post("assets/1/upload/:token", use: upload)
        router.get("assets/1/download/:token", use: download)
        router.get("assets/1/download/:token/:filename", use: download)
    }

    /// A new receipt: 32 random bytes, base64url.
    static func newReceipt() -> String {
        Tokens.randomBase64URL(bytes: 32)
    }

    // MARK: - Upload

    /// Streams the body into the blob store and answers `{singleFile: {fileChecksum, receipt, size}}`.
    @Sendable func upload(_ request: Request, context: StratusRequestContext) async throws -> Response {
        guard let claims = server.assetURLs.upload(from: try context.parameters.require("token")) else {
            throw APIError(.accessDenied, "the upload URL is not valid")
        }
        let lifetime = Int64(server.configuration.assetUploadLifetime) * 1000
        guard claims.expiresAt > ServerClock.now() else {
            throw APIError(.accessDenied, "the upload URL has expired; ask assets/upload for a new one")
        }
        let limit = server.configuration.maximumAssetBytes
        if let length = request.headers[.contentLength].flatMap(Int64.init), length > limit {
            throw Self.tooLarge(limit)
        }
        try await server.storageQuotas.checkRoom(for: request.headers[.contentLength].flatMap(Int64.init) ?? 0, in: claims.database)
        // Uploads share the process's budget with request bodies: what this one holds, at most, while it runs
        // (a small file declared by its length holds less than the store's most).
        let declared = request.headers[.contentLength].flatMap(Int.init)
        let held = Self.writeSize + min(server.blobs.memoryPerUpload, declared.map { 2 * $0 } ?? .max)
        try RequestBody.budget.reserve(held)
        defer { RequestBody.budget.release(held) }
        let id = Tokens.randomHex(bytes: 16)
        // Registered first, so an upload cut short by a crash is found and collected later.
        try await server.store.beginAssetUpload(id: id, database: claims.database, holdUntil: ServerClock.now() + 2 * lifetime)
        let asset: StoredAsset
        do {
            asset = try await receive(request, id: id, database: claims.database, limit: limit)
            // A body of no declared length is held to the quota once its size is known.
            if request.headers[.contentLength] == nil { try await server.storageQuotas.checkRoom(for: asset.size, in: claims.database) }
        } catch {
            try? await server.store.abandonAssetUpload(id: id)
            throw error
        }
        let receipt = AssetReceipt(receipt: Self.newReceipt(), assetID: id, fieldName: claims.fieldName, expiresAt: ServerClock.now() + lifetime)
        do {
            try await server.store.completeAssetUpload(asset, receipt: receipt)
        } catch {
            try? await server.blobs.delete(key: id)
            throw error
        }
        try await server.storageQuotas.noteAccepted(asset.size, in: claims.database)
        return JSONResponse.make(AssetUploadResult(singleFile: .init(fileChecksum: asset.fileChecksum, receipt: receipt.receipt, size: asset.size)))
    }

    /// Writes the file to a new blob, hashing it and counting it against the limit as it arrives: the raw
    /// body, or the file part of a `multipart/form-data` body.
    private func receive(_ request: Request, id: String, database: DatabaseRef, limit: Int64) async throws -> StoredAsset {
        var form: MultipartFile?
        do {
            form = try MultipartFile(contentType: request.headers[.contentType])
        } catch {
            throw APIError.badRequest(error.reason)
        }
        let upload = try await server.blobs.beginUpload(key: id)
        var hasher = SHA256()
        var size: Int64 = 0
        var bodySize: Int64 = 0
        var prefix: [UInt8] = []
        var pending: [UInt8] = []
        pending.reserveCapacity(Self.writeSize)
        do {
            for try await buffer in request.body {
                bodySize += Int64(buffer.readableBytes)
                // A form's envelope may add a little to the file, never megabytes.
                guard bodySize <= limit + (form == nil ? 0 : Self.maximumFormOverhead) else { throw Self.tooLarge(limit) }
                let file: [UInt8]
                if form != nil {
                    do { file = try form!.feed(buffer.readableBytesView) } catch { throw APIError.badRequest(error.reason) }
                } else {
                    file = Array(buffer.readableBytesView)
                }
                size += Int64(file.count)
                guard size <= limit else { throw Self.tooLarge(limit) }
                hasher.update(data: file)
                if prefix.count < 512 { prefix += file.prefix(512 - prefix.count) }
                pending += file
                if pending.count >= Self.writeSize {
                    try await upload.append(pending)
                    pending.removeAll(keepingCapacity: true)
                }
            }
            if form != nil {
                do { try form!.finish() } catch { throw APIError.badRequest(error.reason) }
            }
            if !pending.isEmpty { try await upload.append(pending) }
            try await upload.commit()
        } catch {
            await upload.abort()
            throw error
        }
        let declared = form == nil ? request.headers[.contentType] : form?.partContentType
        return StoredAsset(
            id: id, database: database, size: size, fileChecksum: Data(hasher.finalize()).base64EncodedString(),
            contentType: MediaTypes.declared(declared) ?? MediaTypes.sniff(prefix)
        )
    }

    /// How many bytes a multipart envelope may add to the file it carries.
    static let maximumFormOverhead = RequestLimits.multipartOverhead

    static func tooLarge(_ limit: Int64) -> APIError {
        APIError(.quotaExceeded, "the file is larger than the limit of \(limit) bytes per asset")
    }

    // MARK: - Download

    /// Streams the asset, whole or the requested byte range, while the URL is valid and the record field
    /// it was made for still holds the asset.
    @Sendable func download(_ request: Request, context: StratusRequestContext) async throws -> Response {
        guard let claims = server.assetURLs.download(from: try context.parameters.require("token")) else {
            throw APIError(.accessDenied, "the download URL is not valid")
        }
        guard claims.expiresAt > ServerClock.now() else {
            throw APIError(.accessDenied, "the download URL has expired; fetch the record again for a new one")
        }
        guard let asset = try await server.store.asset(id: claims.assetID), asset.database == claims.database,
            try await isHeld(asset, by: claims)
        else {
            throw APIError(.notFound, "the asset no longer exists or its record no longer holds it")
        }
        var headers = HTTPFields()
        headers[.contentType] = asset.contentType
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = "\"\(asset.fileChecksum)\""
        headers[.cacheControl] = "private, max-age=\(max(0, (claims.expiresAt - ServerClock.now()) / 1000))"
        if let name = context.parameters.get("filename").map(Self.safeFileName), !name.isEmpty {
            headers[.contentDisposition] = "inline; filename=\"\(name)\""
        }
        if request.headers[.ifNoneMatch] == headers[.eTag] {
            return Response(status: .notModified, headers: headers)
        }
        let status: HTTPResponse.Status
        let range: ClosedRange<Int64>?
        switch ByteRange(header: request.headers[.range], size: asset.size) {
        case .whole:
            status = .ok
            range = nil
        case .part(let part):
            status = .partialContent
            range = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(asset.size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(asset.size)"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        let chunks = try await server.blobs.read(key: asset.id, range: range)
        let length = range.map { Int($0.upperBound - $0.lowerBound + 1) } ?? Int(asset.size)
        return Response(status: status, headers: headers, body: ResponseBody(contentLength: length) { writer in
            for try await chunk in chunks {
                try await writer.write(ByteBuffer(bytes: chunk))
            }
            try await writer.finish(nil)
        })
    }

    /// Whether the record field the URL names still holds the asset.
    private func isHeld(_ asset: StoredAsset, by claims: AssetURLs.Download) async throws -> Bool {
        let records: [String: Record]
        do {
            records = try await server.store.lookupRecords([claims.recordName], in: claims.database.zone(claims.zoneName))
        } catch let error as StorageError where error.code == .zoneNotFound {
            return false
        }
        let value = try records[claims.recordName]?.fields.decode()[claims.fieldName]
        return value?.assets.contains { $0.assetID == asset.id } ?? false
    }

    /// A file name safe inside a quoted header value.
    private static func safeFileName(_ name: String) -> String {
        String(name.removingPercentEncoding ?? name).filter { $0.isASCII && !$0.isNewline && $0 != "\"" && $0 != "\\" && $0 != "/" }
            .prefix(200).description
    }
}
