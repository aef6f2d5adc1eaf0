import Foundation

/// A point on Earth, in degrees (`CLLocation`'s wire shape).
public struct Location: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double?
    public var altitude: Double?

    public init(latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.altitude = altitude
    }
}

extension Record {
    /// A field pointing at another record (`CKRecord.Reference`).
    public struct Reference: Sendable, Hashable, Codable {
        /// What happens to the record holding the reference when its target is deleted.
        public enum Action: String, Sendable, Hashable, Codable {
            /// Nothing.
            case none = "NONE"
            /// The holder is deleted too (a message with its channel).
            case deleteSelf = "DELETE_SELF"
            /// The target cannot be deleted while the holder points at it (a Stratus addition).
            case validate = "VALIDATE"
        }

        public var recordID: Record.ID
        public var action: Action

        public init(recordID: Record.ID, action: Action = .none) {
            self.recordID = recordID
            self.action = action
        }

        public init(record: Record, action: Action = .none) {
            self.init(recordID: record.recordID, action: action)
        }
    }
}

/// Text in several languages, kept in one field (a Stratus addition): `["en": "Hello", "es": "Hola"]`.
public struct LocalizedString: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// Text by language tag (`en`, `es`, `pt-BR`).
    public var translations: [String: String]

    public init(_ translations: [String: String]) {
        self.translations = translations
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// The text for the first of `languages` that has one (`pt-BR` falls back to `pt`), else `fallback`'s,
    /// else any.
    public func text(for languages: [String], fallback: String = "en") -> String? {
        for language in languages {
            if let text = translations[language] { return text }
            if let base = language.split(separator: "-").first.map(String.init), let text = translations[base] { return text }
        }
        return translations[fallback] ?? translations.sorted { $0.key < $1.key }.first?.value
    }
}

/// A file held by a record field (`CKAsset`). Saving a record uploads the assets made from a file or from
/// data; a fetched asset has a ``downloadURL`` (signed by the server, valid about an hour).
public struct Asset: Sendable, Hashable, Codable {
    /// A local file: the one to upload, or where a fetched asset was downloaded
    /// (``Database/downloadingAssets(of:into:)``), as `CKAsset.fileURL`.
    public var fileURL: URL?
    /// Bytes to upload.
    public var data: Data?
    /// Where a fetched asset can be downloaded; see ``Database/data(for:)``.
    public internal(set) var downloadURL: URL?
    public internal(set) var fileChecksum: String?
    public internal(set) var size: Int64?
    /// The upload's receipt, once uploaded; sent when the record is saved.
    var receipt: String?

    /// An asset to upload from a file when its record is saved.
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// An asset to upload from memory when its record is saved.
    public init(data: Data) {
        self.data = data
    }

    init(downloadURL: URL?, fileChecksum: String?, size: Int64?) {
        self.downloadURL = downloadURL
        self.fileChecksum = fileChecksum
        self.size = size
    }

    /// Whether the asset still has to be uploaded: made from a file or bytes, neither fetched nor uploaded yet.
    var needsUpload: Bool { receipt == nil && fileChecksum == nil && (fileURL != nil || data != nil) }
}
