import Crypto
import Foundation

/// The asset files of an archive, each kept once, named by its SHA-256 in hexadecimal.
package struct Files {
    package let folder: String
    package private(set) var count = 0
    package private(set) var bytes: Int64 = 0

    package init(folder: String) {
        self.folder = folder
    }

    /// Keeps a file and answers its name.
    package mutating func add(_ data: Data) throws -> String {
        let name = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let path = folder + "/" + name
        if !FileManager.default.fileExists(atPath: path) {
            try data.write(to: URL(fileURLWithPath: path))
            count += 1
            bytes += Int64(data.count)
        }
        return name
    }
}
