import StratusModel
import StratusStore

/// Makes the download URLs of the assets in the records one call returns: signed, valid until one
/// expiry, naming the record field that holds the asset. Only callers who may read a record get them.
package struct AssetLinks: AssetLinking {
    package let urls: AssetURLs
    package let baseURL: String
    package let database: DatabaseRef
    /// Milliseconds since 1970.
    package let expiresAt: Int64

    package func downloadURL(forAsset assetID: String, field: String, of record: Record) -> String? {
        let token = urls.token(for: AssetURLs.Download(
            assetID: assetID, database: database, zoneName: record.zoneID.zoneName, recordName: record.recordName,
            fieldName: field, expiresAt: expiresAt
        ))
        return "\(baseURL)/assets/1/download/\(token)"
    }

    package init(urls: AssetURLs, baseURL: String, database: DatabaseRef, expiresAt: Int64) {
        self.urls = urls
        self.baseURL = baseURL
        self.database = database
        self.expiresAt = expiresAt
    }
}
