import Foundation

/// One file of the web console.
public struct ConsoleFile: Sendable {
    public var bytes: [UInt8]
    public var contentType: String
}

/// The web console: plain HTML, CSS and JavaScript modules kept as package resources, so the server needs
/// nothing at build time and the browser loads nothing from elsewhere.
public enum ConsoleFiles {
    /// Every file of the console by its path under `/console/` (`index.html`, `js/app.js`...).
    /// - Throws: when the package's resources cannot be read.
    public static func load() throws -> [String: ConsoleFile] {
        guard let root = Bundle.module.url(forResource: "console", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "the console's files are missing from the package resources"])
        }
        var files: [String: ConsoleFile] = [:]
        let prefix = root.standardizedFileURL.path + "/"
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(prefix.count))
            files[path] = ConsoleFile(bytes: Array(try Data(contentsOf: url)), contentType: contentType(of: path))
        }
        return files
    }

    static func contentType(of path: String) -> String {
        switch path.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "json": "application/json"
        default: "application/octet-stream"
        }
    }
}
