/// The answer of `assets/upload`: one upload URL per token asked for (`docs/protocol.md#assets`).
public struct AssetUploadResponse: Sendable, Hashable, Decodable, JSONWritable {
    public struct Token: Sendable, Hashable, Decodable, JSONWritable {
        public var recordName: String
        public var recordType: String?
        public var fieldName: String
        /// Where to `POST` the file's bytes; valid for a limited time.
        public var url: String

        public init(recordName: String, recordType: String?, fieldName: String, url: String) {
            self.recordName = recordName
            self.recordType = recordType
            self.fieldName = fieldName
            self.url = url
        }

        public func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.member("fieldName", fieldName)
            writer.member("recordName", recordName)
            writer.member("recordType", recordType)
            writer.member("url", url)
            writer.endObject()
        }
    }
    public var tokens: [Token]

    public init(tokens: [Token]) {
        self.tokens = tokens
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.array("tokens", tokens) { writer, token in token.write(to: &writer) }
        writer.endObject()
    }
}

/// The answer of an upload URL: `{singleFile: {fileChecksum, receipt, size}}`, the value a record's asset field
/// then takes.
public struct AssetUploadResult: Sendable, Hashable, Decodable, JSONWritable {
    public struct File: Sendable, Hashable, Decodable, JSONWritable {
        public var fileChecksum: String
        /// Proves the upload when a record takes the file; valid for a limited time.
        public var receipt: String
        public var size: Int64

        public init(fileChecksum: String, receipt: String, size: Int64) {
            self.fileChecksum = fileChecksum
            self.receipt = receipt
            self.size = size
        }

        public func write(to writer: inout JSONWriter) {
            writer.beginObject()
            writer.member("fileChecksum", fileChecksum)
            writer.member("receipt", receipt)
            writer.member("size", size)
            writer.endObject()
        }
    }
    public var singleFile: File

    public init(singleFile: File) {
        self.singleFile = singleFile
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("singleFile", singleFile)
        writer.endObject()
    }
}
