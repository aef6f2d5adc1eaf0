import Foundation
import StratusModel
import StratusStoreTesting
import Testing

/// Mutated requests, from a fixed seed: whatever a client sends, the answer is a CloudKit error body
/// or a success, never a 500 and never a crash.
@Suite struct FuzzTests {
    /// SplitMix64: small, seedable, the same sequence on every platform.
    static let oddValues: [JSONValue] = [
        .null, .bool(true), .integer(0), .integer(.max), .integer(.min), .double(1e308), .double(-1.5), .string(""),
        .string("é\u{0}\n\""), .string(String(repeating: "A", count: 300)), .array([]), .object([:]), .array([.array([.integer(1)])]),
        .object(["latitude": .double(-200), "longitude": .integer(5)]), .object(["recordName": .string("r1"), "action": .string("BOOM")]),
        .object(["value": .integer(1)]), .array([.integer(1), .string("a")]),
    ]

    static func mutate(_ value: JSONValue, _ rng: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        if depth > 4 || Double.random(in: 0..<1, using: &rng) < 0.15 { return oddValues.randomElement(using: &rng)! }
        switch value {
        case .object(let object):
            var out: [String: JSONValue] = [:]
            for (key, child) in object {
                let roll = Double.random(in: 0..<1, using: &rng)
                if roll < 0.1 { continue }
                out[key] = roll < 0.5 ? mutate(child, &rng, depth: depth + 1) : child
            }
            if Double.random(in: 0..<1, using: &rng) < 0.1 {
                out[["type", "value", "fields", "zoneID", "x"].randomElement(using: &rng)!] = oddValues.randomElement(using: &rng)!
            }
            return .object(out)
        case .array(let elements):
            return .array(elements.map { mutate($0, &rng, depth: depth + 1) })
        default:
            return Double.random(in: 0..<1, using: &rng) < 0.6 ? value : oddValues.randomElement(using: &rng)!
        }
    }

    static func templates() throws -> [(String, JSONValue)] {
        let record = #"{"recordName":"r1","recordType":"T","recordChangeTag":"1","fields":{"s":{"value":"hello"},"n":{"value":3,"type":"INT64"},"t":{"value":5,"type":"TIMESTAMP"},"l":{"value":{"latitude":1,"longitude":2}},"r":{"value":{"recordName":"r2","action":"VALIDATE"}},"a":{"value":["a","b"]},"i":{"value":{"fileChecksum":"abc","receipt":"x","size":3}}}}"#
        let operations = ["create", "update", "forceUpdate", "replace", "forceReplace", "delete", "forceDelete"]
            .map { #"{"operationType":"\#($0)","record":\#(record)}"# }.joined(separator: ",")
        let texts: [(String, String)] = [
            ("records/modify", #"{"zoneID":{"zoneName":"Z"},"atomic":true,"operations":[\#(operations)]}"#),
            ("records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":[{"recordName":"r1"}],"desiredKeys":["s"],"numbersAsStrings":true}"#),
            ("records/query", #"{"zoneID":{"zoneName":"Z"},"resultsLimit":5,"query":{"recordType":"T","filterBy":[{"comparator":"EQUALS","fieldName":"s","fieldValue":{"value":"x"}},{"comparator":"NEAR","fieldName":"l","fieldValue":{"value":{"latitude":1,"longitude":2}},"distance":10},{"comparator":"LIST_CONTAINS","fieldName":"a","fieldValue":{"value":"a"}},{"comparator":"IN","fieldName":"n","fieldValue":{"value":[1,2]}}],"sortBy":[{"fieldName":"n","ascending":false},{"systemFieldName":"recordName"},{"fieldName":"l","relativeLocation":{"value":{"latitude":0,"longitude":0}}}]}}"#),
            ("records/changes", #"{"zoneID":{"zoneName":"Z"},"resultsLimit":3}"#),
            ("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"resultsLimit":2,"desiredRecordTypes":["T"]}],"numbersAsStrings":true}"#),
            ("changes/database", #"{"resultsLimit":2}"#),
            ("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Y"}}},{"operationType":"delete","zone":{"zoneID":{"zoneName":"Y"}}}]}"#),
            ("zones/lookup", #"{"zones":[{"zoneName":"Z"},{"zoneName":"Q"}]}"#),
            ("assets/upload", #"{"zoneID":{"zoneName":"Z"},"tokens":[{"recordType":"T","fieldName":"i","recordName":"r1"},{"recordType":"T","fieldName":"j"}]}"#),
            ("assets/rereference", #"{"zoneID":{"zoneName":"Z"},"assets":[{"recordName":"r1","fieldName":"i"}]}"#),
        ]
        return try texts.map { ($0.0, try JSONDecoder().decode(JSONValue.self, from: Data($0.1.utf8))) }
    }

    @Test("mutated requests never get a 500 or crash the server", arguments: [UInt64(1), 2, 3])
    func mutatedRequests(seed: UInt64) async throws {
        let templates = try Self.templates()
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Z"}}}]}"#)
            var rng = SeededGenerator(seed: seed)
            for _ in 0..<300 {
                let (operation, template) = templates.randomElement(using: &rng)!
                var writer = JSONWriter()
                Self.mutate(template, &rng).write(to: &writer)
                var body = writer.text
                if Double.random(in: 0..<1, using: &rng) < 0.05 { body = String(body.prefix(Int.random(in: 0...body.count, using: &rng))) }
                let database = ["private", "private", "public", "shared"].randomElement(using: &rng)!
                let reply = try await alice.post(database, operation, body)
                #expect(reply.status < 500, "\(operation) on \(database) with \(body.prefix(300)) answered \(reply.json)")
                if reply.status >= 400 {
                    #expect(reply.errorCode != nil && reply["reason"] != nil, "\(reply.json)")
                }
            }
            let health = try await client.send(.get, "/healthz")
            #expect(health.status == 200)
        }
    }

    /// Share records, links and the shared database, sent by a participant and by the owner.
    static func sharingTemplates(owner: String, guid: String) throws -> [(String, String, JSONValue)] {
        let zone = #"{"zoneName":"Z","ownerRecordName":"\#(owner)"}"#
        let share = #"{"recordName":"s1","recordType":"cloudkit.share","recordChangeTag":"1","forRecord":{"recordName":"root"},"publicPermission":"READ_WRITE","participants":[{"participantId":"p","userIdentity":{"lookupInfo":{"emailAddress":"x@example.com","phoneNumber":"+1 555 0100","userRecordName":"_u"}},"permission":"READ_ONLY","type":"USER"}],"fields":{"cloudkit.title":{"value":"T"}}}"#
        let child = #"{"recordName":"c1","recordType":"T","parent":{"recordName":"root"},"fields":{"s":{"value":"x"}}}"#
        let texts: [(String, String, String)] = [
            ("private", "records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"forceUpdate","record":\#(share)},{"operationType":"create","record":\#(child)}]}"#),
            ("shared", "records/modify", #"{"zoneID":\#(zone),"operations":[{"operationType":"create","record":\#(child)},{"operationType":"forceDelete","record":{"recordName":"s1"}}]}"#),
            ("shared", "records/lookup", #"{"zoneID":\#(zone),"records":[{"recordName":"root"},{"recordName":"c1"}]}"#),
            ("shared", "records/query", #"{"zoneID":\#(zone),"query":{"recordType":"T"}}"#),
            ("shared", "changes/zone", #"{"zones":[{"zoneID":\#(zone)}]}"#),
            ("shared", "zones/lookup", #"{"zones":[\#(zone)]}"#),
            ("shared", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"z","subscriptionType":"zone","zoneID":\#(zone)}}]}"#),
            ("public", "records/resolve", #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true,"rootRecordDesiredKeys":["s"]}]}"#),
            ("public", "records/accept", #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#),
        ]
        return try texts.map { ($0.0, $0.1, try JSONDecoder().decode(JSONValue.self, from: Data($0.2.utf8))) }
    }

    @Test("mutated sharing requests never get a 500 or crash the server", arguments: [UInt64(4), 5])
    func mutatedSharingRequests(seed: UInt64) async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            try await alice.createZone("Z")
            _ = try await alice.save([#"{"recordName":"root","recordType":"T","fields":{}}"#], zone: "Z")
            let share = try await alice.share("root", zone: "Z", publicPermission: "READ_WRITE", name: "s1")
            guard let guid = share["shortGUID"]?.stringValue else { throw TestFailure("\(share)") }
            _ = try await bob.shareResults("accept", [guid])
            let templates = try Self.sharingTemplates(owner: alice.userRecordName, guid: guid)
            var rng = SeededGenerator(seed: seed)
            for _ in 0..<200 {
                let (database, operation, template) = templates.randomElement(using: &rng)!
                var writer = JSONWriter()
                Self.mutate(template, &rng).write(to: &writer)
                let user = database == "private" ? alice : bob
                let reply = try await user.post(database, operation, writer.text)
                #expect(reply.status < 500, "\(operation) on \(database) with \(writer.text.prefix(300)) answered \(reply.json)")
                if reply.status >= 400 {
                    #expect(reply.errorCode != nil && reply["reason"] != nil, "\(reply.json)")
                }
            }
            #expect(try await client.send(.get, "/healthz").status == 200)
        }
    }
}
