import Foundation

/// The media type of an uploaded file: the one its upload declared, else one recognised from its first bytes.
package enum MediaTypes {
    package static let fallback = "application/octet-stream"

    /// The declared `Content-Type`, unless it says nothing about the file (what curl and forms send).
    package static func declared(_ header: String?) -> String? {
        guard let header else { return nil }
        let value = header.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard !value.isEmpty, value.utf8.count <= 100, value.contains("/"),
            value.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "\"") }),
            ![fallback, "application/x-www-form-urlencoded", "multipart/form-data"].contains(value)
        else { return nil }
        return value
    }

    /// Recognises common image, audio, video and document formats by their signatures.
    package static func sniff(_ prefix: [UInt8]) -> String {
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            prefix.count >= offset + signature.count && Array(prefix[offset..<offset + signature.count]) == signature
        }
        let ascii = { (text: String) in Array(text.utf8) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if starts([0xFF, 0xD8, 0xFF]) { return "image/jpeg" }
        if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) { return "image/gif" }
        if starts(ascii("RIFF")) && starts(ascii("WEBP"), at: 8) { return "image/webp" }
        if starts(ascii("RIFF")) && starts(ascii("WAVE"), at: 8) { return "audio/wav" }
        if starts(ascii("ftypheic"), at: 4) || starts(ascii("ftypheix"), at: 4) { return "image/heic" }
        if starts(ascii("ftypM4A"), at: 4) { return "audio/mp4" }
        if starts(ascii("ftypqt"), at: 4) { return "video/quicktime" }
        if starts(ascii("ftyp"), at: 4) { return "video/mp4" }
        if starts(ascii("%PDF-")) { return "application/pdf" }
        if starts(ascii("ID3")) || starts([0xFF, 0xFB]) { return "audio/mpeg" }
        if starts(ascii("OggS")) { return "audio/ogg" }
        if starts([0x1A, 0x45, 0xDF, 0xA3]) { return "video/webm" }
        if starts([0x50, 0x4B, 0x03, 0x04]) { return "application/zip" }
        if starts(ascii("<svg")) || starts(ascii("<?xml")) && String(decoding: prefix, as: UTF8.self).contains("<svg") { return "image/svg+xml" }
        if starts([0x1F, 0x8B]) { return "application/gzip" }
        if !prefix.isEmpty, prefix.allSatisfy({ $0 == 9 || $0 == 10 || $0 == 13 || ($0 >= 32 && $0 != 127) }),
            String(validating: prefix, as: UTF8.self) != nil
        {
            return prefix.first == UInt8(ascii: "{") || prefix.first == UInt8(ascii: "[") ? "application/json" : "text/plain; charset=utf-8"
        }
        return fallback
    }
}
