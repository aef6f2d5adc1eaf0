import StratusModel

/// One searchable key derived from a record's fields. Backends store these beside records so that
/// queries find records through an index instead of reading them all, comparing keys as bytes
/// (``IndexKey``).
public struct IndexEntry: Sendable, Hashable {
    /// What the key stands for.
    public enum Kind: Int, Sendable, Hashable {
        /// The value of a scalar field.
        case value = 0
        /// One element of a list field.
        case listElement = 1
        /// One lowercased token of a STRING field, for CONTAINS_*_TOKENS.
        case token = 2
        /// The values of a compound index's fields, one after the other; `field` is the index's name.
        case compound = 3
    }

    /// A key value of a primitive type, before it is encoded.
    public enum Key: Sendable, Hashable {
        case integer(Int64)
        case double(Double)
        case text(String)
    }

    /// The field path, or a compound index's name.
    public var field: String
    public var kind: Kind
    public var key: IndexKey
    /// The longitude of a LOCATION (whose key is its latitude); 0 otherwise.
    public var extra: Double

    public init(field: String, kind: Kind, key: IndexKey, extra: Double = 0) {
        self.field = field
        self.kind = kind
        self.key = key
        self.extra = extra
    }

    public init(field: String, kind: Kind, key: Key, extra: Double = 0) {
        self.init(field: field, kind: kind, key: IndexKey(key), extra: extra)
    }

    /// The most tokens indexed for one STRING value.
    public static let maximumTokensPerValue = 1_000

    /// The index entries of a record's fields, for the fields `indexing` says are kept.
    public static func entries(for fields: [String: FieldValue], indexing: (String) -> FieldIndexing) -> [IndexEntry] {
        var entries: [IndexEntry] = []
        entries.reserveCapacity(fields.count * 2)
        for (name, value) in fields {
            let kept = indexing(name)
            guard !kept.isNone else { continue }
            entries += self.entries(field: name, value: value, kept: kept)
        }
        return entries
    }

    /// The entries of one field's value.
    public static func entries(field name: String, value: FieldValue, kept: FieldIndexing) -> [IndexEntry] {
        var entries: [IndexEntry] = []
        switch value {
        case .localizedString(let texts):
            // Each language is searchable on its own, as the field path `name.language`.
            for (tag, text) in texts {
                let path = name + "." + tag
                if kept.values { entries.append(IndexEntry(field: path, kind: .value, key: .text(text))) }
                if kept.words {
                    for token in TextTokenizer.tokens(in: text).prefix(maximumTokensPerValue) {
                        entries.append(IndexEntry(field: path, kind: .token, key: .text(token)))
                    }
                }
            }
        case .list(_, let elements):
            guard kept.values else { break }
            var seen = Set<IndexEntry>()
            for element in elements {
                if let entry = entry(field: name, kind: .listElement, value: element), seen.insert(entry).inserted {
                    entries.append(entry)
                }
            }
        default:
            if kept.values, let entry = entry(field: name, kind: .value, value: value) { entries.append(entry) }
            if kept.words, case .string(let text) = value {
                for token in TextTokenizer.tokens(in: text).prefix(maximumTokensPerValue) {
                    entries.append(IndexEntry(field: name, kind: .token, key: .text(token)))
                }
            }
        }
        return entries
    }

    /// The entries of a type's compound indexes for one version of a record: every index gets one entry,
    /// with a missing value's key for the fields the record lacks.
    public static func compoundEntries(
        for fields: [String: FieldValue], system: SystemFieldValues, of type: RecordTypeSchema?
    ) -> [IndexEntry] {
        guard let type, !type.compoundIndexes.isEmpty else { return [] }
        return type.compoundIndexes.map { index in
            var key = IndexKey()
            for field in index.fields {
                key.append(field.hasPrefix("___") ? system.key(of: field) : fields[field].flatMap(self.key(for:)))
            }
            return IndexEntry(field: index.name, kind: .compound, key: key)
        }
    }

    /// The key a comparand is stored and compared as, or `nil` for values that are not indexed.
    public static func key(for value: FieldValue) -> Key? {
        switch value {
        case .string(let text): .text(text)
        case .int64(let number), .timestamp(let number): .integer(number)
        case .double(let number): .double(number)
        case .reference(let reference): .text(reference.recordName)
        case .location(let location): .double(location.latitude)
        case .boolean(let value): .integer(value ? 1 : 0)
        case .bytes, .asset, .list, .localizedString: nil
        }
    }

    private static func entry(field: String, kind: Kind, value: FieldValue) -> IndexEntry? {
        guard let key = key(for: value) else { return nil }
        if case .location(let location) = value {
            return IndexEntry(field: field, kind: kind, key: key, extra: location.longitude)
        }
        return IndexEntry(field: field, kind: kind, key: key)
    }
}

/// Splits text into the lowercased word tokens that CONTAINS_ALL_TOKENS and CONTAINS_ANY_TOKENS match.
public enum TextTokenizer {
    /// The distinct tokens of `text`, in order of first appearance.
    public static func tokens(in text: String) -> [String] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiTokens(in: text) }
        return unicodeTokens(in: text)
    }

    /// The common case, byte by byte: letters and digits make tokens, lowercased.
    private static func asciiTokens(in text: String) -> [String] {
        var tokens: [String] = []
        var seen = Set<String>()
        var current: [UInt8] = []
        func flush() {
            guard !current.isEmpty else { return }
            let token = String(decoding: current, as: UTF8.self)
            if seen.insert(token).inserted { tokens.append(token) }
            current.removeAll(keepingCapacity: true)
        }
        for byte in text.utf8 {
            switch byte {
            case 0x30...0x39, 0x61...0x7A: current.append(byte)
            case 0x41...0x5A: current.append(byte | 0x20)
            default: flush()
            }
        }
        flush()
        return tokens
    }

    private static func unicodeTokens(in text: String) -> [String] {
        var tokens: [String] = []
        var seen = Set<String>()
        var current = ""
        func flush() {
            if !current.isEmpty, seen.insert(current).inserted { tokens.append(current) }
            current = ""
        }
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else {
                flush()
            }
        }
        flush()
        return tokens
    }
}

/// A record's system fields that compound indexes may hold.
public struct SystemFieldValues: Sendable, Hashable {
    public var recordName: String
    public var created: RecordStamp
    public var modified: RecordStamp

    public init(recordName: String, created: RecordStamp, modified: RecordStamp) {
        self.recordName = recordName
        self.created = created
        self.modified = modified
    }

    /// The key of a system field by its schema name (`___createTime`...), or `nil` for others.
    public func key(of field: String) -> IndexEntry.Key? {
        switch field {
        case "___createTime": .integer(created.timestamp)
        case "___modTime": .integer(modified.timestamp)
        case "___recordID": .text(recordName)
        case "___createdBy": .text(created.userRecordName)
        case "___modifiedBy": .text(modified.userRecordName)
        default: nil
        }
    }
}
