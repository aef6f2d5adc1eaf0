import Foundation
import StratusModel

/// Decodes a value parsed already as JSON into a `Decodable` type.
enum JSONValueDecoder {
    static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        var writer = JSONWriter()
        value.write(to: &writer)
        return try JSONDecoder().decode(type, from: Data(writer.bytes))
    }
}

extension JSONValue {
    /// The JSON of an `Encodable` value.
    init(encoding value: some Encodable) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
    }
}
