import Foundation
internal import StratusModel

extension JSONValue {
    /// The JSON of an encodable value (a StratusModel wire type), for answers and requests built as JSON values.
    init(encoding value: some Encodable) throws {
        self = try JSONParser.parse(JSONEncoder().encode(value))
    }
}
