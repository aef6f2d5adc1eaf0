/// A wire value the server writes with ``JSONWriter`` (fast, keys in a fixed order), whose `Encodable`
/// conformance comes from that same writer: the JSON shape is written down once, in ``write(to:)``.
///
/// Each such type reads the same shape back in its `Decodable` conformance, beside the writer, and the model's
/// tests check that what one writes the other reads.
public protocol JSONWritable: Encodable {
    /// Writes the value's JSON.
    func write(to writer: inout JSONWriter)
}

extension JSONWritable {
    public func encode(to encoder: any Encoder) throws {
        var writer = JSONWriter()
        write(to: &writer)
        try JSONParser.parse(writer.bytes).encode(to: encoder)
    }

    /// The value's JSON text.
    public var jsonText: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }
}

extension JSONWriter {
    /// Writes `"key": value`, or nothing when the value is absent.
    public mutating func member(_ key: String, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    /// Writes `"key": value`, or nothing when the value is absent.
    public mutating func member(_ key: String, _ value: Int64?) {
        guard let value else { return }
        self.key(key)
        integer(value)
    }

    /// Writes `"key": value`, or nothing when the value is absent.
    public mutating func member(_ key: String, _ value: Bool?) {
        guard let value else { return }
        self.key(key)
        bool(value)
    }

    /// Writes `"key": value`, or nothing when the value is absent.
    public mutating func member(_ key: String, _ value: (some JSONWritable)?) {
        guard let value else { return }
        self.key(key)
        value.write(to: &self)
    }
}
