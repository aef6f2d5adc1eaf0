import Foundation
internal import StratusModel

extension JSONValue {
    /// The JSON of an encodable value (a StratusModel wire type), for answers and requests built as JSON values.
    init(encoding value: some Encodable) throws {
        self = try JSONParser.parse(JSONEncoder().encode(value))
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var integerValue: Int64? {
        switch self {
        case .integer(let value): value
        case .double(let value): Int64(exactly: value.rounded())
        case .string(let value): Int64(value)
        default: nil
        }
    }

    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }
}

extension Date {
    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}
