import Foundation
import StratusModel
import Testing

/// The request decoder must read what `JSONDecoder` reads and fail where it fails, at the same coding path,
/// because the server's error reasons are made from those paths.
@Suite struct JSONValueDecoderTests {
    @Test("request bodies decode as JSONDecoder decodes them", arguments: [
        #"{"operations":[{"operationType":"create","record":{"recordType":"Item","fields":{"cat":{"value":"c1"},"n":{"value":7}}}}]}"#,
        #"{"operations":[{"operationType":"update","record":{"recordName":"a","recordChangeTag":"1z","parent":null,"fields":{"x":{"value":null}}}}],"atomic":true,"zoneID":{"zoneName":"z"}}"#,
        #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"a","recordType":"T","parent":{"recordName":"p"},"createShortGUID":true,"fields":{"l":{"value":[1,2.5,"x",{"k":[true]}],"type":"STRING_LIST"}}}}],"desiredKeys":["a"],"numbersAsStrings":false}"#,
        #"{"operations":[{"operationType":"create","record":{"recordType":"cloudkit.share","forRecord":{"recordName":"r"},"publicPermission":"NONE","participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"a@b.c"}},"permission":"READ_WRITE","type":"USER"}]}}]}"#,
    ])
    func modify(body: String) throws {
        try expectSameDecoding(ModifyRecordsRequest.self, body)
    }

    @Test("lookups and queries decode as JSONDecoder decodes them", arguments: [
        #"{"records":[{"recordName":"r1"},{"recordName":"r2","desiredKeys":["a","b"]}],"zoneID":{"zoneName":"_defaultZone","ownerRecordName":"_u"}}"#,
        #"{"resultsLimit":50,"query":{"recordType":"Item","filterBy":[{"comparator":"EQUALS","fieldName":"cat","fieldValue":{"value":"c3"}},{"comparator":"GREATER_THAN","fieldName":"n","fieldValue":{"value":10}}],"sortBy":[{"fieldName":"n","ascending":false}]}}"#,
        #"{"query":{"recordType":"Place","filterBy":[{"comparator":"NEAR","fieldName":"at","fieldValue":{"value":{"latitude":1.5,"longitude":-2}},"distance":1000.5}]},"zoneWide":true,"continuationMarker":"abc"}"#,
    ])
    func readQueries(body: String) throws {
        if body.contains("\"records\"") {
            try expectSameDecoding(LookupRecordsRequest.self, body)
        } else {
            try expectSameDecoding(QueryRecordsRequest.self, body)
        }
    }

    @Test("bad bodies fail the way JSONDecoder fails, at the same path", arguments: [
        "{}",
        #"{"operations":5}"#,
        #"{"operations":null}"#,
        #"{"operations":[{"record":{}}]}"#,
        #"{"operations":[{"operationType":"explode","record":{}}]}"#,
        #"{"operations":[{"operationType":"create","record":{"recordType":7}}]}"#,
        #"{"operations":[{"operationType":"create","record":{"recordType":"T","fields":{"a":5}}}]}"#,
        #"{"operations":[{"operationType":"create","record":"no"}]}"#,
        #"{"operations":[{"operationType":"create","record":{"parent":{"recordName":1}}}]}"#,
        #"{"operations":[],"atomic":"yes"}"#,
        #"[1,2]"#,
    ])
    func modifyFailures(body: String) {
        expectSameFailure(ModifyRecordsRequest.self, body)
    }

    @Test("bad lookups and queries fail the way JSONDecoder fails", arguments: [
        #"{"records":[{"recordName":null}]}"#,
        #"{"records":[{}]}"#,
        #"{"records":{}}"#,
        #"{"query":{"recordType":"A"},"resultsLimit":"x"}"#,
        #"{"query":{"recordType":"A"},"resultsLimit":1.5}"#,
        #"{"query":{"recordType":"A"},"resultsLimit":1e40}"#,
        #"{"query":{"filterBy":[]}}"#,
        #"{"query":{"recordType":"A","filterBy":[{"fieldName":"a"}]}}"#,
    ])
    func readFailures(body: String) {
        if body.contains("\"records\"") {
            expectSameFailure(LookupRecordsRequest.self, body)
        } else {
            expectSameFailure(QueryRecordsRequest.self, body)
        }
    }

    @Test("text that is not JSON fails as corrupted data with an empty path")
    func notJSON() {
        #expect(signature(of: { try JSONValueDecoder().decode(ModifyRecordsRequest.self, from: Array("{\"operations\":[".utf8)) }) == "dataCorrupted@")
    }

    @Test("member names with escapes, repeated names and objects of many members read as JSONDecoder reads them")
    func memberLookup() throws {
        try expectSameDecoding(ModifyRecordsRequest.self, #"{"operations":[{"operation\u0054ype":"create","record":{"recordType":"A","recordType":"B"}}]}"#)
        let members = [#""k\u0031":11"#] + (0..<300).map { #""k\#($0)":\#($0)"# } + [#""k7":-1"#]
        let text = "{" + members.joined(separator: ",") + "}"
        let expected = try JSONDecoder().decode([String: Int].self, from: Data(text.utf8))
        #expect(try JSONValueDecoder().decode([String: Int].self, from: Array(text.utf8)) == expected)
        #expect(expected["k7"] == 7 && expected["k1"] == 11)
        // Small objects are searched in place, large ones through an index: both find the first of a repeated name.
        struct Pair: Decodable { var a: Int }
        #expect(try JSONValueDecoder().decode(Pair.self, from: Array(#"{"a":1,"a":2}"#.utf8)).a == 1)
        let large = "{" + (0..<40).map { #""f\#($0)":0"# }.joined(separator: ",") + #","a":1,"a":2}"#
        #expect(try JSONValueDecoder().decode(Pair.self, from: Array(large.utf8)).a == 1)
    }

    @Test("an array longer than the limit is refused at its path before its elements are read; field values are not limited")
    func arrayLimit() throws {
        let decoder = JSONValueDecoder(maximumArrayCount: 3)
        let operation = #"{"operationType":"create","record":{"recordType":"T"}}"#
        let four = #"{"operations":["# + Array(repeating: operation, count: 4).joined(separator: ",") + "]}"
        #expect(signature(of: { try decoder.decode(ModifyRecordsRequest.self, from: Array(four.utf8)) }) == "dataCorrupted@operations")
        let three = #"{"operations":["# + Array(repeating: operation, count: 3).joined(separator: ",") + "]}"
        #expect(try decoder.decode(ModifyRecordsRequest.self, from: Array(three.utf8)).operations.count == 3)
        let longList = #"{"operations":[{"operationType":"create","record":{"recordType":"T","fields":{"l":{"value":[1,2,3,4,5,6]}}}}]}"#
        #expect(try decoder.decode(ModifyRecordsRequest.self, from: Array(longList.utf8)) == JSONDecoder().decode(ModifyRecordsRequest.self, from: Data(longList.utf8)))
    }

    private func expectSameDecoding<T: Decodable & Equatable>(_ type: T.Type, _ body: String) throws {
        let expected = try JSONDecoder().decode(type, from: Data(body.utf8))
        let decoded = try JSONValueDecoder().decode(type, from: Array(body.utf8))
        #expect(decoded == expected)
    }

    private func expectSameFailure<T: Decodable>(_ type: T.Type, _ body: String) {
        let expected = signature(of: { try JSONDecoder().decode(type, from: Data(body.utf8)) })
        let found = signature(of: { try JSONValueDecoder().decode(type, from: Array(body.utf8)) })
        // JSONDecoder reports a number that does not fit with an empty path; this decoder names the key.
        if expected == "dataCorrupted@" && found.hasPrefix("dataCorrupted@") { return }
        #expect(found == expected, "\(body)")
        #expect(expected != "decoded", "\(body) must not decode")
    }

    /// The kind of decoding error and its coding path (the key that was missing included), or `decoded`.
    private func signature(of decode: () throws -> some Any) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { key in key.intValue.map(String.init) ?? key.stringValue }.joined(separator: ".")
        }
        do {
            _ = try decode()
            return "decoded"
        } catch let error as DecodingError {
            switch error {
            case .keyNotFound(let key, let context): return "keyNotFound@\(path(context.codingPath + [key]))"
            case .typeMismatch(_, let context): return "typeMismatch@\(path(context.codingPath))"
            case .valueNotFound(_, let context): return "valueNotFound@\(path(context.codingPath))"
            case .dataCorrupted(let context): return "dataCorrupted@\(path(context.codingPath))"
            @unknown default: return "unknown"
            }
        } catch {
            return "other: \(error)"
        }
    }
}
