import Foundation
import StratusKit

extension CKDatabase {
    /// Where fetched assets are downloaded: the app's caches folder, one file per content (named by checksum), so
    /// an asset fetched again is not downloaded again.
    static var assetFolder: URL {
        let caches = FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first ?? FileManager.default.temporaryDirectory
        return caches.appendingPathComponent("StratusCloudKit-Assets", isDirectory: true)
    }

    /// A fetched record as CloudKit hands it out: each asset downloaded to a file on this device, which its
    /// `CKAsset.fileURL` names.
    func delivered(_ record: Record) async throws -> CKRecord {
        guard Self.hasAssetsToDownload(record) else { return CKRecord.made(from: record) }
        let database = stratus
        return CKRecord.made(from: try await container.call { try await database.downloadingAssets(of: record, into: Self.assetFolder) })
    }

    /// A fetched record's result, with its assets downloaded; a download that fails is the record's failure.
    func delivered(_ result: Result<Record, any Error>) async -> Result<CKRecord, any Error> {
        switch result {
        case .success(let record):
            do { return .success(try await delivered(record)) } catch { return .failure(error) }
        case .failure(let error):
            return .failure(CKError.from(error))
        }
    }

    private static func hasAssetsToDownload(_ record: Record) -> Bool {
        func needsDownload(_ value: FieldValue) -> Bool {
            switch value {
            case .asset(let asset): asset.fileURL == nil && asset.downloadURL != nil
            case .list(let items): items.contains(where: needsDownload)
            default: false
            }
        }
        return record.values.values.contains(where: needsDownload)
    }
}
