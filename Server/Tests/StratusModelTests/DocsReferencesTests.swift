import Foundation
import StratusStoreTesting
import Testing

/// Comments point at the repository's own documentation: every `docs/<page>.md#<section>` they name exists, and
/// nothing points outside the repository.
@Suite struct DocsReferencesTests {
    /// The Swift files of both packages: their sources and tests.
    static func swiftFiles() -> [String] {
        ["Sources", "Server/Sources", "Server/Tests", "Server/Examples", "Server/Plugins"].flatMap { folder -> [String] in
            let root = Repository.path(folder)
            let walker = FileManager.default.enumerator(atPath: root)
            return (walker?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }.map { root + "/" + $0 }
        }
    }

    /// The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces as hyphens.
    static func anchors(ofPage path: String) throws -> Set<String> {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var anchors = Set<String>()
        var inCode = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inCode.toggle() }
            guard !inCode, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            anchors.insert(String(title.compactMap { character -> Character? in
                if character == " " { return "-" }
                return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
            }))
        }
        return anchors
    }

    @Test("every docs/<page>.md#<section> a comment names exists, and no comment names a page outside the repository")
    func referencesResolve() throws {
        let files = Self.swiftFiles()
        #expect(files.count > 100, "found only \(files.count) Swift files under \(Repository.path(""))")
        let reference = try NSRegularExpression(pattern: #"docs/([a-z0-9-]+\.md)(#[a-z0-9-]+)?((?:`?, `#[a-z0-9-]+)*)"#)
        var pages: [String: Set<String>] = [:]
        var checked = 0
        var broken: [String] = []
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            let name = file.replacingOccurrences(of: Repository.path(""), with: "")
            // A page named by its bare file name and a section sign is a page outside the repository.
            if text.contains(".md` \u{00A7}") { broken.append("\(name) names a page outside docs/ by section") }
            let range = NSRange(text.startIndex..., in: text)
            for match in reference.matches(in: text, range: range) {
                let page = String(text[Range(match.range(at: 1), in: text)!])
                let pagePath = Repository.path("docs/" + page)
                guard FileManager.default.fileExists(atPath: pagePath) else {
                    broken.append("\(name) names docs/\(page), which does not exist")
                    continue
                }
                if pages[page] == nil { pages[page] = try Self.anchors(ofPage: pagePath) }
                var sections: [String] = []
                if let first = Range(match.range(at: 2), in: text) { sections.append(String(text[first].dropFirst())) }
                if let more = Range(match.range(at: 3), in: text) {
                    sections += text[more].split(separator: "#").dropFirst().map { String($0.prefix { $0.isLetter || $0.isNumber || $0 == "-" }) }
                }
                for section in sections {
                    checked += 1
                    if !(pages[page]?.contains(section) ?? false) { broken.append("\(name) names docs/\(page)#\(section), which has no such section") }
                }
            }
        }
        #expect(checked > 40, "only \(checked) section references were found")
        #expect(broken.isEmpty, "\(broken.joined(separator: "\n"))")
    }
}
