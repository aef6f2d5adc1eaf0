import Foundation

/// One message as it goes to the SMTP server: an envelope and an RFC 5322 text with a plain-text body and, when
/// given, an HTML alternative (MIME `multipart/alternative`), all in UTF-8.
public struct MailMessage: Sendable, Hashable {
    public var fromAddress: String
    public var fromName: String
    public var to: String
    public var subject: String
    public var text: String
    public var html: String?
    /// Unique per message: `<random@sender's domain>`.
    public var messageID: String
    public var date: Date

    public init(fromAddress: String, fromName: String, to: String, subject: String, text: String, html: String? = nil, date: Date = Date()) {
        self.fromAddress = fromAddress
        self.fromName = fromName
        self.to = to
        self.subject = subject
        self.text = text
        self.html = html
        self.date = date
        let domain = fromAddress.split(separator: "@").last.map(String.init) ?? "stratus.invalid"
        messageID = "<\(UUID().uuidString.lowercased())@\(domain)>"
    }

    /// The message as sent after `DATA`: CRLF line ends, dot-stuffed, without the final `.` line.
    public func rendered() -> String {
        var lines = [
            "From: \(Self.headerText(fromName)) <\(fromAddress)>",
            "To: <\(to)>",
            "Subject: \(Self.headerText(subject))",
            "Date: \(Self.rfc5322Date(date))",
            "Message-ID: \(messageID)",
            "MIME-Version: 1.0",
        ]
        if let html {
            let boundary = "stratus-" + UUID().uuidString.lowercased()
            lines.append("Content-Type: multipart/alternative; boundary=\"\(boundary)\"")
            lines.append("")
            lines.append("--\(boundary)")
            lines += Self.part(text, type: "text/plain")
            lines.append("--\(boundary)")
            lines += Self.part(html, type: "text/html")
            lines.append("--\(boundary)--")
        } else {
            lines += Self.part(text, type: "text/plain")
        }
        return lines.map { $0.hasPrefix(".") ? "." + $0 : $0 }.joined(separator: "\r\n") + "\r\n"
    }

    /// A body part's headers and its base64 body in lines of 76 characters.
    private static func part(_ body: String, type: String) -> [String] {
        let normalized = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n")
        let encoded = Data(normalized.utf8).base64EncodedString()
        var lines = ["Content-Type: \(type); charset=utf-8", "Content-Transfer-Encoding: base64", ""]
        var index = encoded.startIndex
        while index < encoded.endIndex {
            let end = encoded.index(index, offsetBy: 76, limitedBy: encoded.endIndex) ?? encoded.endIndex
            lines.append(String(encoded[index..<end]))
            index = end
        }
        return lines
    }

    /// Header text as is when it is printable ASCII, else as an RFC 2047 encoded word (`=?utf-8?b?...?=`), in pieces
    /// short enough for a header line.
    static func headerText(_ text: String) -> String {
        let flattened = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        if flattened.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F && $0 != "\"" }) { return flattened }
        var words: [String] = []
        var piece = ""
        for character in flattened {
            if piece.utf8.count + String(character).utf8.count > 45 {
                words.append(piece)
                piece = ""
            }
            piece.append(character)
        }
        if !piece.isEmpty { words.append(piece) }
        return words.map { "=?utf-8?b?" + Data($0.utf8).base64EncodedString() + "?=" }.joined(separator: "\r\n ")
    }

    static func rfc5322Date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        return formatter.string(from: date)
    }
}
