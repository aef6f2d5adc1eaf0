@testable import StratusServer
import StratusServices
import Testing

/// The multipart reader, fed the same bodies cut into chunks of every size, as the network may deliver them.
@Suite struct MultipartFileTests {
    static let boundary = "----Boundary7MA4YWxkTrZu0gW"
    /// A file with bytes that look like the start of a boundary, and a line break at its end.
    static let file = Array("line one\r\n--not the boundary\r\n------Boundary7MA4YWxk but not quite\r\n".utf8) + (0..<300).map { UInt8($0 % 256) }

    static func form(preamble: String = "", padding: String = "", quoted: Bool = false, extraPart: Bool = false) -> (contentType: String, body: [UInt8]) {
        var body = Array("\(preamble)--\(boundary)\(padding)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\"\r\nContent-Type: application/pdf\r\n\r\n".utf8)
        body += file
        body += Array("\r\n--\(boundary)".utf8)
        if extraPart { body += Array("\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n--\(boundary)".utf8) }
        body += Array("--\r\n".utf8)
        return ("multipart/form-data; boundary=\(quoted ? "\"\(boundary)\"" : boundary)", body)
    }

    static func extract(_ body: [UInt8], contentType: String, chunk: Int) throws -> (file: [UInt8], type: String?) {
        guard var reader = try MultipartFile(contentType: contentType) else { throw TestFailure("not multipart") }
        var output: [UInt8] = []
        var offset = 0
        while offset < body.count {
            output += try reader.feed(body[offset..<min(body.count, offset + chunk)])
            offset += chunk
        }
        try reader.finish()
        return (output, reader.partContentType)
    }

    static let forms = [
        form(), form(preamble: "This is a preamble.\r\n"), form(padding: "  "), form(quoted: true), form(extraPart: true),
    ]

    @Test("the file part comes out whole whatever the chunk size", arguments: forms.indices)
    func chunked(_ index: Int) throws {
        let (contentType, body) = Self.forms[index]
        for chunk in [1, 2, 3, 7, 64, 71, 72, 73, body.count] {
            let (file, type) = try Self.extract(body, contentType: contentType, chunk: chunk)
            #expect(file == Self.file, "chunks of \(chunk)")
            #expect(type == "application/pdf")
        }
    }

    @Test("other bodies are not forms; broken forms are refused")
    func refusals() throws {
        #expect(try MultipartFile(contentType: "application/octet-stream") == nil)
        #expect(try MultipartFile(contentType: nil) == nil)
        #expect(throws: MultipartFile.Malformed.self) { try MultipartFile(contentType: "multipart/form-data") }
        let (contentType, body) = Self.form()
        #expect(throws: MultipartFile.Malformed.self) { try Self.extract(Array(body.dropLast(40)), contentType: contentType, chunk: 16) }
        #expect(throws: MultipartFile.Malformed.self) {
            try Self.extract(Array("no boundary here at all".utf8), contentType: contentType, chunk: 4)
        }
        var huge = Array("--\(Self.boundary)\r\n".utf8)
        huge += Array(repeating: UInt8(ascii: "h"), count: MultipartFile.maximumHeaderBytes + 10)
        #expect(throws: MultipartFile.Malformed.self) { try Self.extract(huge, contentType: contentType, chunk: 1024) }
    }
}
