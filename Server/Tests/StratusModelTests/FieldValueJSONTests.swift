import Foundation
import StratusModel
import Testing

@Suite struct FieldValueJSONTests {
    static func fixture(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try String(contentsOf: url, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("canonical field JSON decodes and re-encodes to the same bytes")
    func goldenRoundTrip() throws {
        let golden = try Self.fixture("record-fields")
        let values = try EncodedFields(json: golden).decode()
        #expect(values["max"] == .int64(.max))
        #expect(values["min"] == .int64(.min))
        #expect(values["blob"] == .bytes(Data([0, 1, 2, 255])))
        #expect(values["s"] == .string("héllo \"world\"\n\ttab \\ back"))
        #expect(values["ref"] == .reference(Reference(
            recordName: "parent", zoneID: ZoneID(zoneName: "Notes", ownerRecordName: "_0123456789abcdef0123456789abcdef"), action: .deleteSelf
        )))
        #expect(values["empty"] == .list(.int64, []))
        #expect(EncodedFields(values).json == golden)
    }

    @Test("the JSON writer's output is valid JSON that Foundation reads back", arguments: [
        "plain", "quote \" and backslash \\", "control \u{01}\u{1F}", "newline\nreturn\rtab\t", "emoji 🎉 and ünïcode",
    ])
    func writerEscaping(_ text: String) throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key(text)
        writer.string(text)
        writer.endObject()
        let decoded = try JSONDecoder().decode([String: String].self, from: Data(writer.bytes))
        #expect(decoded == [text: text])
    }

    @Test("values are read by their declared type", arguments: [
        (JSONValue.integer(5), "TIMESTAMP", FieldValue.timestamp(5)),
        (.string("42"), "INT64", .int64(42)),
        (.string("-9223372036854775808"), "INT64", .int64(.min)),
        (.integer(3), "DOUBLE", .double(3)),
        (.bool(true), "INT64", .int64(1)),
        (.double(1.5e3), "INT64", .int64(1500)),
        (.string("AQID"), "BYTES", .bytes(Data([1, 2, 3]))),
        (.string("AQI"), "BYTES", .bytes(Data([1, 2]))),
        (.object(["recordName": .string("x")]), "REFERENCE", .reference(Reference(recordName: "x"))),
        (.array([.string("a")]), "STRING_LIST", .list(.string, [.string("a")])),
        (.bool(true), "BOOLEAN", .boolean(true)),
        (.integer(0), "BOOLEAN", .boolean(false)),
        (.object(["en": .string("No Thanks"), "es": .string("No, Gracias")]), "LOCALIZED_STRING", .localizedString(["en": "No Thanks", "es": "No, Gracias"])),
        (.array([.bool(false)]), "BOOLEAN_LIST", .list(.boolean, [.boolean(false)])),
    ])
    func declaredTypes(_ json: JSONValue, _ type: String, _ expected: FieldValue) throws {
        let fieldType = try #require(FieldType(wireName: type))
        #expect(try FieldValue(json: json, as: fieldType) == expected)
    }

    @Test("values that do not fit their type are refused with a reason", arguments: [
        (JSONValue.string("x"), "INT64"),
        (.double(1.5), "INT64"),
        (.string("1"), "STRING_LIST"),
        (.object(["latitude": .integer(91), "longitude": .integer(0)]), "LOCATION"),
        (.object(["longitude": .integer(0)]), "LOCATION"),
        (.object(["recordName": .string("x"), "action": .string("EXPLODE")]), "REFERENCE"),
        (.array([.integer(1), .string("two")]), "INT64_LIST"),
        (.null, "STRING"),
        (.integer(2), "BOOLEAN"),
        (.object(["en": .integer(1)]), "LOCALIZED_STRING"),
        (.object(["1x": .string("a")]), "LOCALIZED_STRING"),
        (.string("Hello"), "LOCALIZED_STRING"),
    ])
    func mismatches(_ json: JSONValue, _ type: String) throws {
        let fieldType = try #require(FieldType(wireName: type))
        #expect(throws: ModelError.self) { try FieldValue(json: json, as: fieldType) }
    }

    @Test("a value sent without a type gets the type it most likely has", arguments: [
        (JSONValue.string("x"), "STRING"),
        (.integer(1), "INT64"),
        (.bool(true), "BOOLEAN"),
        (.double(1.5), "DOUBLE"),
        (.object(["latitude": .integer(1), "longitude": .integer(2)]), "LOCATION"),
        (.object(["recordName": .string("r")]), "REFERENCE"),
        (.array([.integer(1), .double(2.5)]), "DOUBLE_LIST"),
        (.array([.string("a")]), "STRING_LIST"),
    ])
    func inference(_ json: JSONValue, _ expected: String) {
        #expect(FieldValue.inferredType(of: json)?.wireName == expected)
    }

    @Test("types that cannot be told are not guessed", arguments: [JSONValue.null, .array([]), .object(["a": .integer(1)]), .array([.string("a"), .integer(1)])])
    func noInference(_ json: JSONValue) {
        #expect(FieldValue.inferredType(of: json) == nil)
    }

    @Test("every JSON kind decodes to the matching JSONValue")
    func jsonValueDecoding() throws {
        let text = #"[true, false, 1, -9223372036854775808, 1.5, 1e300, "s", null, {"a": [1, "b"]}, [], {}]"#
        let values = try JSONDecoder().decode([JSONValue].self, from: Data(text.utf8))
        #expect(values == [
            .bool(true), .bool(false), .integer(1), .integer(.min), .double(1.5), .double(1e300), .string("s"), .null,
            .object(["a": .array([.integer(1), .string("b")])]), .array([]), .object([:]),
        ])
    }

    @Test("wire type names parse both ways, ASSET as an alias")
    func typeNames() {
        for scalar in ScalarType.allCases {
            #expect(FieldType(wireName: scalar.rawValue) == FieldType(scalar))
            #expect(FieldType(wireName: scalar.rawValue + "_LIST") == .list(scalar))
        }
        #expect(FieldType(wireName: "ASSET") == FieldType(.asset))
        #expect(FieldType(wireName: "NUMBER") == nil)
    }
}
