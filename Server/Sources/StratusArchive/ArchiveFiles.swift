import Foundation

/// An archive folder as one tar file, and back.
public enum ArchiveFiles {
    /// Writes every file below `folder` into a new tar at `path`, named by its path in the folder.
    public static func pack(_ folder: String, into path: String) throws {
        let writer = try TarWriter(path: path)
        guard let names = FileManager.default.enumerator(atPath: folder) else { throw ArchiveError("cannot read \(folder)") }
        for case let name as String in names {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            try writer.addFile(at: folder + "/" + name, as: name)
        }
        try writer.finish()
    }

    /// Writes the files of the tar at `path` below `folder` (made when missing). Names leaving the folder are refused.
    public static func unpack(_ path: String, into folder: String) throws {
        let reader = try TarReader(path: path)
        defer { reader.close() }
        while let entry = try reader.next() {
            let parts = entry.name.split(separator: "/")
            guard !parts.isEmpty, !parts.contains(".."), !entry.name.hasPrefix("/") else {
                throw ArchiveError("the archive holds a file named \(entry.name), outside its folder")
            }
            let target = folder + "/" + entry.name
            try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try reader.copy(entry, to: target)
        }
    }
}
