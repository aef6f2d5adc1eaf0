/// Reads the few values Stratus needs out of S3's XML answers: the text of named elements.
///
/// S3's answers are flat and machine-written; elements looked for never nest inside themselves.
enum XMLText {
    /// The text of every `<name>...</name>`, in order, with the five predefined entities decoded.
    static func values(of name: String, in xml: String) -> [String] {
        blocks(of: name, in: xml).map(decodeEntities)
    }

    /// The first `<name>` text, if any.
    static func value(of name: String, in xml: String) -> String? {
        values(of: name, in: xml).first
    }

    /// The raw inner XML of every `<name>...</name>`.
    static func blocks(of name: String, in xml: String) -> [String] {
        var results: [String] = []
        var rest = xml[...]
        let open = "<\(name)>"
        let close = "</\(name)>"
        while let start = rest.range(of: open), let end = rest[start.upperBound...].range(of: close) {
            results.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return results
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private static func decodeEntities(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
