import Foundation
import StratusModel

extension JSONValue {
    /// The JSON of an `Encodable` value.
    init(encoding value: some Encodable) throws {
        self = try JSONParser.parse(JSONEncoder().encode(value))
    }
}
