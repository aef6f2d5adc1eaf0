import StratusStore

/// Blob keys are the server's asset IDs; stores accept only letters, digits, `-` and `_`, so a key can
/// never name a path outside the store.
enum BlobKeys {
    static func validate(_ key: String) throws {
        guard !key.isEmpty, key.utf8.count <= 128,
            key.utf8.allSatisfy({ $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else {
            throw StorageError(.invalidArgument, "'\(key)' is not a valid blob key")
        }
    }
}

extension UInt8 {
    var isASCIILetterOrDigit: Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(self)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
    }
}
