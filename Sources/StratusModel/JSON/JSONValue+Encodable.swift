import Foundation

extension JSONValue {
    /// The JSON of an `Encodable` value (a wire type), for a request or answer that carries it as a JSON value.
    public init(encoding value: some Encodable) throws {
        self = try JSONParser.parse(JSONEncoder().encode(value))
    }
}
