import Foundation
import Testing

/// The HTTP layer writes no size of its own: every body, head and upload limit is one of StratusServices'
/// `RequestLimits`, so that they are read, changed and documented in one place.
@Suite struct HTTPLayerLimitsTests {
    /// `StratusServer`'s sources, found from this file's place in the repository.
    static var serverSources: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/StratusServer")
    }

    @Test("no byte size is written in StratusServer: no 'N * 1024', and no body read with a number for its limit")
    func noSizesInTheHTTPLayer() throws {
        let sizes = try Regex(#"\b[0-9][0-9_]* \* 1024\b|(limit|upTo|upToCount): [0-9]+ \*|RequestBody\.(read|decode)\([^)]*limit: [0-9]|collect\(upTo: [0-9]"#)
        var files = 0
        var found: [String] = []
        let walker = try #require(FileManager.default.enumerator(at: Self.serverSources, includingPropertiesForKeys: nil))
        for case let url as URL in walker where url.pathExtension == "swift" {
            files += 1
            let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if line.contains(sizes) { found.append("\(url.lastPathComponent):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))") }
            }
        }
        #expect(files > 50, "read \(files) files under \(Self.serverSources.path)")
        #expect(found.isEmpty, "sizes written in the HTTP layer (use RequestLimits):\n\(found.joined(separator: "\n"))")
    }
}
