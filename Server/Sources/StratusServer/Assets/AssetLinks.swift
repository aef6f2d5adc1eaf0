import StratusModel
import StratusStore

/// Makes the download URLs of the assets in the records one call returns: signed, valid until one
/// expiry, naming the record field that holds the asset. Only callers who may read a record get them.
struct AssetLinks: AssetLinking {
    let urls: AssetURLs
    let baseURL: String
    let database: DatabaseRef
    /// Milliseconds since 1970.
    let expiresAt: Int64

    func downloadURL(forAsset assetID: String, field: String, of record: Record) -> String? {
        let token = urls.token(for: AssetURLs.Download(
            assetID: assetID, database: database, zoneName: record.zoneID.zoneName, recordName: record.recordName,
            fieldName: field, expiresAt: expiresAt
        ))
        return "\(baseURL)/assets/1/download/\(token)"
    }
}
