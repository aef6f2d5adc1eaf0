import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// `assets/upload` and `assets/rereference` (`docs/protocol.md#assets`): what lets a record take a file.
struct AssetsController {
    let server: ServerState

    func register(on group: RouterGroup<StratusRequestContext>) {
        group.post("assets/upload", use: requestUploads)
        group.post("assets/rereference", use: rereference)
    }

    /// Answers one signed upload URL per token, valid for the configured upload lifetime.
    @Sendable func requestUploads(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(AssetUploadRequest.self, from: request)
        guard body.tokens.count <= RecordLimits.maximumResults else {
            throw APIError.badRequest("a request may ask for at most \(RecordLimits.maximumResults) upload tokens, not \(body.tokens.count)")
        }
        let target = try await call.target(body.zoneID, store: server.store)
        if let access = target.access, !access.grants.contains(where: { $0.permission.allowsWriting }) {
            throw APIError(.accessDenied, "zone \(target.zone.zoneName) is shared with you read-only")
        }
        let zone = target.zone
        try await server.storageQuotas.checkRoom(for: 0, in: zone.database)
        let schema = try await server.store.schema(containerID: call.authentication.container.id, environment: call.authentication.environment)
        let expiresAt = ServerClock.now() + Int64(server.configuration.assetUploadLifetime) * 1000
        var tokens: [AssetUploadResponse.Token] = []
        for (index, token) in body.tokens.enumerated() {
            try checkUpload(token, at: index, call: call, schema: schema)
            let recordName = token.recordName ?? UUID().uuidString
            guard RecordNames.isValidName(recordName) else {
                throw APIError.badRequest("tokens[\(index)].recordName '\(recordName)' is not a valid record name")
            }
            let signed = server.assetURLs.token(for: AssetURLs.Upload(
                database: zone.database, zoneName: zone.zoneName, recordType: token.recordType, fieldName: token.fieldName,
                recordName: recordName, expiresAt: expiresAt
            ))
            tokens.append(AssetUploadResponse.Token(
                recordName: recordName, recordType: token.recordType, fieldName: token.fieldName, url: "\(call.baseURL)/assets/1/upload/\(signed)"
            ))
        }
        return call.respond(AssetUploadResponse(tokens: tokens))
    }

    /// Refuses a token for a field that cannot hold an asset, or a record type the caller may not save.
    private func checkUpload(_ token: AssetUploadRequest.Token, at index: Int, call: DatabaseCall, schema: Schema) throws {
        guard RecordNames.isValidName(token.fieldName), RecordNames.isValidName(token.recordType) else {
            throw APIError.badRequest("tokens[\(index)] needs a valid recordType and fieldName")
        }
        guard let type = schema.recordTypes[token.recordType] else {
            guard call.authentication.environment == .development else {
                throw APIError(.notFound, "record type '\(token.recordType)' is not in the production schema; deploy it from development first")
            }
            _ = try call.requireUser()
            return
        }
        if let field = type.fields[token.fieldName] {
            guard field.type.scalar == .asset else {
                throw APIError.badRequest("field \(token.fieldName) of \(token.recordType) is \(field.type.wireName), not an asset field")
            }
        } else if call.authentication.environment == .production {
            throw APIError.badRequest("record type \(token.recordType) has no field \(token.fieldName) in production")
        }
        guard call.scope == .public else { return }
        let caller = call.caller
        guard AccessPolicy.allows(.create, on: type, caller: caller, creator: nil)
            || AccessPolicy.allows(.write, on: type, caller: caller, creator: caller.userRecordName)
        else {
            if caller.userRecordName == nil { _ = try call.requireUser() }
            throw APIError(storageError: AccessPolicy.refusal(.write, recordType: token.recordType))
        }
    }

    /// Answers, for asset fields of records the caller may read, values with fresh receipts that let
    /// other records of the same database take the same files.
    ///
    /// Response: `{assets: [{recordName, fieldName, type, value}]}`, `value` being what `records/modify`
    /// takes as the field's value, or a per-item `{recordName, fieldName, serverErrorCode, reason}`.
    @Sendable func rereference(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let call = try await DatabaseCall.resolve(request, context, using: server)
        let body = try await call.decode(RereferenceAssetsRequest.self, from: request)
        guard body.assets.count <= RecordLimits.maximumResults else {
            throw APIError.badRequest("a request may name at most \(RecordLimits.maximumResults) assets")
        }
        let target = try await call.target(body.zoneID, store: server.store)
        var records = try await server.store.lookupRecords(Array(Set(body.assets.map(\.recordName))), in: target.zone)
        let visible = try await target.visible(Array(records.keys), store: server.store)
        records = records.filter { visible.contains($0.key) }
        let access = try await call.reader(store: server.store)
        let expiresAt = ServerClock.now() + Int64(server.configuration.assetUploadLifetime) * 1000

        var outcomes: [Result<FieldValue, APIError>] = []
        var receipts: [AssetReceipt] = []
        for item in body.assets {
            guard let record = records[item.recordName], access.mayRead(record) else {
                outcomes.append(.failure(APIError(.notFound, "record \(item.recordName) does not exist")))
                continue
            }
            guard let value = (try? record.fields.decode())?[item.fieldName], value.type.scalar == .asset else {
                outcomes.append(.failure(APIError.badRequest("record \(item.recordName) has no asset in field \(item.fieldName)")))
                continue
            }
            let fresh = value.mappingAssets { asset in
                let receipt = AssetReceipt(
                    receipt: AssetTransfer.newReceipt(), assetID: asset.assetID ?? "", fieldName: nil, expiresAt: expiresAt
                )
                receipts.append(receipt)
                return Asset(fileChecksum: asset.fileChecksum, size: asset.size, receipt: receipt.receipt)
            }
            outcomes.append(.success(fresh))
        }
        let gone = try await server.store.issueAssetReceipts(receipts)
        let assetOfReceipt = Dictionary(uniqueKeysWithValues: receipts.map { ($0.receipt, $0.assetID) })
        return call.respond(JSONWriter.object { writer in
            writer.array("assets", Array(zip(body.assets, outcomes))) { writer, pair in
                let (item, outcome) = pair
                var failure: APIError?
                if case .failure(let error) = outcome { failure = error }
                if case .success(let value) = outcome, value.assets.contains(where: { gone.contains(assetOfReceipt[$0.receipt ?? ""] ?? "") }) {
                    failure = APIError(.notFound, "the asset in field \(item.fieldName) of \(item.recordName) no longer exists")
                }
                writer.beginObject()
                writer.key("fieldName")
                writer.string(item.fieldName)
                if let failure {
                    writer.key("reason")
                    writer.string(failure.reason)
                }
                writer.key("recordName")
                writer.string(item.recordName)
                if let failure {
                    writer.key("serverErrorCode")
                    writer.string(failure.code.rawValue)
                } else if case .success(let value) = outcome {
                    writer.key("type")
                    writer.string(value.type.wireName)
                    writer.key("value")
                    value.writeValue(to: &writer)
                }
                writer.endObject()
            }
        })
    }
}
