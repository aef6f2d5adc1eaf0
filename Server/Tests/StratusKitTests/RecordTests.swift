import Foundation
import StratusKit
import Testing

@Suite struct RecordTests {
    @Test("every field type is saved and read back as its Swift type")
    func fieldTypes() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let zone = try await database.save(Zone(zoneName: "Types"))
            let other = try await database.save(Record(recordType: "Target", recordID: Record.ID(recordName: "target", zoneID: zone.zoneID)))
            let when = Date(timeIntervalSince1970: 1_700_000_000.123)
            var record = Record(recordType: "Everything", recordID: Record.ID(recordName: "all", zoneID: zone.zoneID))
            record["text"] = "hello"
            record["count"] = 42
            record["big"] = Int64.max
            record["ratio"] = 0.25
            record["flag"] = true
            record["when"] = when
            record["blob"] = Data([0, 1, 2, 255])
            record["place"] = Location(latitude: 48.8566, longitude: 2.3522)
            record["link"] = Record.Reference(record: other, action: .deleteSelf)
            record["greeting"] = LocalizedString(["en": "Hello", "es": "Hola"])
            record["tags"] = ["a", "b"]
            record["scores"] = [1.5, 2.5]
            record["days"] = [when, when.addingTimeInterval(86_400)]
            let saved = try await database.save(record)
            #expect(saved.recordChangeTag != nil)
            #expect(saved.creationDate != nil)

            let fetched = try await database.record(for: record.recordID)
            #expect(fetched["text"] as String? == "hello")
            #expect(fetched["count"] as Int? == 42)
            #expect(fetched["big"] as Int64? == .max)
            #expect(fetched["ratio"] as Double? == 0.25)
            #expect(fetched["flag"] as Bool? == true)
            #expect((fetched["when"] as Date?)?.timeIntervalSince1970 == 1_700_000_000.123)
            #expect(fetched["blob"] as Data? == Data([0, 1, 2, 255]))
            #expect(fetched["place"] as Location? == Location(latitude: 48.8566, longitude: 2.3522))
            #expect((fetched["link"] as Record.Reference?)?.recordID == other.recordID)
            #expect((fetched["link"] as Record.Reference?)?.action == .deleteSelf)
            #expect((fetched["greeting"] as LocalizedString?)?.text(for: ["es-MX"]) == "Hola")
            #expect((fetched["greeting"] as LocalizedString?)?.text(for: ["fr"]) == "Hello")
            #expect(fetched["tags"] as [String]? == ["a", "b"])
            #expect(fetched["scores"] as [Double]? == [1.5, 2.5])
            #expect((fetched["days"] as [Date]?)?.count == 2)
            #expect(fetched["text"] as Int? == nil)
            #expect(fetched.allKeys.count == 13)

            // Deleting the target deletes the record pointing at it with deleteSelf.
            try await database.deleteRecord(withID: other.recordID)
            await #expect { try await database.record(for: record.recordID) } throws: { error in
                (error as? StratusError)?.code == .unknownItem
            }
        }
    }

    @Test("a stale save fails with serverRecordChanged carrying the server, client and ancestor records; other policies overwrite")
    func conflicts() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            var note = Record(recordType: "Note", recordID: Record.ID(recordName: "n1"))
            note["title"] = "first"
            note["body"] = "text"
            let original = try await database.save(note)

            var elsewhere = original
            elsewhere["title"] = "changed elsewhere"
            try await database.save(elsewhere)

            var mine = original
            mine["title"] = "mine"
            do {
                try await database.save(mine)
                Issue.record("a stale save succeeded")
            } catch let error as StratusError {
                #expect(error.code == .serverRecordChanged)
                #expect(error.serverRecord?["title"] as String? == "changed elsewhere")
                #expect(error.clientRecord?["title"] as String? == "mine")
                #expect(error.ancestorRecord?["title"] as String? == "first")
            }
            let merged = try await database.modifyRecords(saving: [mine], deleting: [], savePolicy: .changedKeys)
            let result = try merged.saveResults[mine.recordID]!.get()
            #expect(result["title"] as String? == "mine")
            #expect(result["body"] as String? == "text")

            var replacement = Record(recordType: "Note", recordID: note.recordID)
            replacement["title"] = "only this"
            let replaced = try await database.modifyRecords(saving: [replacement], deleting: [], savePolicy: .allKeys)
            #expect(try replaced.saveResults[note.recordID]!.get()["body"] as String? == nil)

            // Creating a record that exists is a conflict too.
            await #expect { try await database.save(Record(recordType: "Note", recordID: note.recordID)) } throws: { error in
                (error as? StratusError)?.code == .serverRecordChanged
            }
        }
    }

    @Test("batches answer per record; atomic batches in custom zones fail together; lookups answer per ID")
    func batches() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let zone = try await database.save(Zone(zoneName: "Batch"))
            let ids = (1...3).map { Record.ID(recordName: "r\($0)", zoneID: zone.zoneID) }
            let records = ids.map { id in
                var record = Record(recordType: "Item", recordID: id)
                record["n"] = Int(id.recordName.dropFirst())!
                return record
            }
            let saved = try await database.modifyRecords(saving: records, deleting: [])
            #expect(saved.saveResults.values.allSatisfy { (try? $0.get()) != nil })

            var clash = Record(recordType: "Item", recordID: ids[0])
            clash["n"] = 9
            let fresh = Record(recordType: "Item", recordID: Record.ID(recordName: "r4", zoneID: zone.zoneID))
            let failed = try await database.modifyRecords(saving: [fresh, clash], deleting: [])
            #expect(Self.code(failed.saveResults[fresh.recordID]) == .batchRequestFailed)
            #expect(Self.code(failed.saveResults[clash.recordID]) == .serverRecordChanged)
            let lone = try await database.modifyRecords(saving: [fresh, clash], deleting: [], atomically: false)
            #expect(Self.code(lone.saveResults[fresh.recordID]) == nil)

            let looked = try await database.records(for: [ids[1], Record.ID(recordName: "missing", zoneID: zone.zoneID)])
            #expect((try? looked[ids[1]]?.get())?["n"] as Int? == 2)
            #expect(Self.code(looked[Record.ID(recordName: "missing", zoneID: zone.zoneID)]) == .unknownItem)
            let deleted = try await database.modifyRecords(saving: [], deleting: [ids[2]])
            #expect((try? deleted.deleteResults[ids[2]]?.get()) != nil)

            await #expect { try await database.record(for: Record.ID(recordName: "x", zoneID: Zone.ID(zoneName: "Nope"))) } throws: { error in
                (error as? StratusError)?.code == .zoneNotFound
            }
        }
    }

    static func code<T>(_ result: Result<T, any Error>?) -> StratusError.Code? {
        guard case .failure(let error)? = result else { return nil }
        return (error as? StratusError)?.code
    }
}
