import Foundation
import StratusModel
import Testing

@Suite struct RecordRenderingTests {
    static let record = Record(
        recordName: "r1", recordType: "Note", recordChangeTag: "7",
        fields: EncodedFields(["title": .string("Hi"), "count": .int64(3), "ratio": .double(0.5), "at": .timestamp(9)]),
        created: RecordStamp(timestamp: 1, userRecordName: "_u", deviceID: "web"),
        modified: RecordStamp(timestamp: 2, userRecordName: "_u", deviceID: "web"),
        zoneID: ZoneID(zoneName: "Notes", ownerRecordName: "_u")
    )

    func render(_ rendering: RecordRendering) throws -> [String: JSONValue] {
        var writer = JSONWriter()
        Self.record.write(to: &writer, rendering: rendering)
        return try JSONDecoder().decode([String: JSONValue].self, from: Data(writer.bytes))
    }

    @Test("a record carries its system fields, created and modified included")
    func systemFields() throws {
        let json = try render(.full)
        #expect(json["recordName"] == .string("r1"))
        #expect(json["recordType"] == .string("Note"))
        #expect(json["recordChangeTag"] == .string("7"))
        #expect(json["created"]?.objectValue?["timestamp"] == .integer(1))
        #expect(json["modified"]?.objectValue?["userRecordName"] == .string("_u"))
        #expect(json["zoneID"]?.objectValue?["zoneName"] == .string("Notes"))
        #expect(json["fields"]?.objectValue?.count == 4)
    }

    @Test("desiredKeys limits the fields; an empty list leaves only system keys")
    func desiredKeys() throws {
        #expect(try render(RecordRendering(desiredKeys: ["title"]))["fields"]?.objectValue?.keys.sorted() == ["title"])
        #expect(try render(RecordRendering(desiredKeys: []))["fields"]?.objectValue?.isEmpty == true)
    }

    @Test("numbersAsStrings writes numbers as strings")
    func numbersAsStrings() throws {
        let fields = try #require(render(RecordRendering(numbersAsStrings: true))["fields"]?.objectValue)
        #expect(fields["count"]?.objectValue?["value"] == .string("3"))
        #expect(fields["ratio"]?.objectValue?["value"] == .string("0.5"))
        #expect(fields["at"]?.objectValue?["value"] == .string("9"))
        #expect(fields["title"]?.objectValue?["value"] == .string("Hi"))
    }

    @Test("request bodies decode with their defaults")
    func requestDecoding() throws {
        let body = #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"a","fields":{"n":{"value":1}}}}]}"#
        let request = try JSONDecoder().decode(ModifyRecordsRequest.self, from: Data(body.utf8))
        #expect(request.operations[0].operationType == .forceReplace)
        #expect(request.operations[0].record.fields?["n"] == FieldInput(value: .integer(1)))
        #expect(request.atomic == nil)
        let zone = try JSONDecoder().decode(ZoneID.self, from: Data("{}".utf8))
        #expect(zone == .default)
    }

    struct Links: AssetLinking {
        func downloadURL(forAsset assetID: String, field: String, of record: Record) -> String? {
            "https://stratus.example/assets/\(record.recordName)/\(field)/\(assetID)"
        }
    }

    @Test("stored assets are rendered with a download URL for the reader, never with the server's asset ID")
    func assets() throws {
        let stored = Asset(assetID: "a1", fileChecksum: "sum", size: 5)
        var record = Self.record
        record.fields = EncodedFields(["image": .asset(stored), "gallery": .list(.asset, [.asset(stored)]), "note": .string(#""type":"ASSETID""#)])
        #expect(record.fields.containsAssets)
        #expect(!EncodedFields(["note": .string(#""type":"ASSETID""#)]).containsAssets)
        var writer = JSONWriter()
        record.write(to: &writer, rendering: RecordRendering(assetLinks: Links()))
        let fields = try #require(try JSONDecoder().decode([String: JSONValue].self, from: Data(writer.bytes))["fields"]?.objectValue)
        let image = try #require(fields["image"]?.objectValue?["value"]?.objectValue)
        #expect(image == ["fileChecksum": .string("sum"), "size": .integer(5), "downloadURL": .string("https://stratus.example/assets/r1/image/a1")])
        #expect(fields["gallery"]?.objectValue?["type"] == .string("ASSETID_LIST"))
        var plain = JSONWriter()
        record.write(to: &plain, rendering: .full)
        #expect(!plain.text.contains("assetID"))
    }
}
